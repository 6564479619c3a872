"""Per-target coordination between workers, kept in the cache (Redis in production, shared by every
worker and web process): send slots, the slow mark, and the "a hint is queued" flag.

Nothing here is the truth about a delivery (the `Delivery` row is); losing the cache only costs
throughput or an extra hint, never an event.

* Send slots: a drain (webhooks.outbox) holds one of its target's slots while it sends, so a receiver
  that hangs holds at most PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET worker threads, never all of them.
  A slot is a key of its own that expires with the claim lease, so a killed worker's slot comes back.
* The slow mark: a target whose last send took PONTE_WEBHOOK_SLOW_SECONDS or timed out gets fewer slots
  and one delivery per claim, for PONTE_WEBHOOK_SLOW_MEMORY_SECONDS or until it answers quickly.
* The hint flag: one broker message per target is enough while it waits in the queue (its drain sends
  everything due there), so emit() publishes a hint only when it sets the flag, and the worker clears
  it before it looks for due deliveries. Only with a shared cache: with a per-process cache (locmem, the
  embedded default) the web process could never see the worker clear it, so every delivery is hinted.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache

from core.cache_scripts import cache_add_first

# A flag outliving its hint (lost with the broker) only delays deliveries until the next hint or the
# sweeper; a hint outliving its flag (a long queue) only makes one more hint. So: short.
HINT_FLAG_SECONDS = 10


def _key(target_url: str, what: str) -> str:
    return f"webhooks:{what}:" + hashlib.sha256(target_url.encode()).hexdigest()[:32]


def _lease_seconds() -> int:
    return int(settings.PONTE_WEBHOOK_CLAIM_LEASE_SECONDS)


def _flag_kept() -> bool:
    """Whether the hint flag is kept (a cache every process shares), so that a hint may wait on it."""
    return "locmem" not in settings.CACHES["default"]["BACKEND"].lower()


# --- Slow mark -----------------------------------------------------------------------------------


def is_slow(target_url: str) -> bool:
    return bool(cache.get(_key(target_url, "slow")))


def remember_speed(target_url: str, *, slow: bool, answered: bool, was_slow: bool) -> None:
    """Record how the target's last sends went: `slow` if one took too long or timed out, `answered`
    if one succeeded quickly (which clears a slow mark)."""
    if slow:
        cache.set(_key(target_url, "slow"), True, timeout=int(settings.PONTE_WEBHOOK_SLOW_MEMORY_SECONDS))
    elif answered and was_slow:
        cache.delete(_key(target_url, "slow"))


def is_too_slow(duration_ms: int, error: str | None) -> bool:
    return duration_ms >= float(settings.PONTE_WEBHOOK_SLOW_SECONDS) * 1000 or (error or "").startswith(
        "timeout"
    )


# --- Send slots ----------------------------------------------------------------------------------


def slot_take(target_url: str) -> tuple[str | None, bool]:
    """Take a free send slot of the target and read its slow mark, in one round trip to the cache
    (core.cache_scripts.cache_add_first): the slot's key ("" when no cap applies, None when the cap is
    reached), and whether the target is slow (which sets the cap: fewer slots for a slow target)."""
    caps = (
        int(settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET),
        int(settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET),
    )
    base = _key(target_url, "slot")
    keys = [f"{base}:{index}" for index in range(max(*caps, 0))]
    taken, (mark,) = cache_add_first(keys, _lease_seconds(), [_key(target_url, "slow")])
    slow = bool(mark)
    cap = caps[1] if slow else caps[0]
    if taken is not None and (cap <= 0 or taken >= cap):
        # The slots were tried before the mark was read: a slow target's drain may have taken one past
        # its cap (or one where no cap applies), given back at once, before anything is sent.
        cache.delete(keys[taken])
        taken = None
    if cap <= 0:
        return "", slow
    return (None if taken is None else keys[taken]), slow


def slot_release(key: str | None, *, hint_taken_for: str | None = None) -> None:
    """Give the slot back; with `hint_taken_for`, lower that target's hint flag too (hint_taken), in
    the same round trip: a drain that found nothing more does both as it ends."""
    keys = [key] if key else []
    if hint_taken_for is not None and _flag_kept():
        keys.append(hint_flag(hint_taken_for))
    if len(keys) == 1:
        cache.delete(keys[0])
    elif keys:
        cache.delete_many(keys)


# --- Hint flag -----------------------------------------------------------------------------------


def hint_flag(target_url: str) -> str:
    """The cache key of the target's hint flag (for a caller raising it with its hint in one round
    trip: webhooks.outbox.hints)."""
    return _key(target_url, "hinted")


def hint_wanted(target_url: str, *, force: bool = False) -> bool:
    """Whether a hint must be published for the target now; sets the flag when it must.

    `force` (the sweeper, a drain handing over) publishes whatever the flag says: the flag may belong to
    a hint that was lost.
    """
    if not _flag_kept():
        return True
    key = hint_flag(target_url)
    if force:
        cache.set(key, 1, timeout=HINT_FLAG_SECONDS)
        return True
    return bool(cache.add(key, 1, timeout=HINT_FLAG_SECONDS))


def hint_taken(target_url: str) -> None:
    """A hint for the target reached a worker: deliveries committed from now on need a new one."""
    if _flag_kept():
        cache.delete(hint_flag(target_url))


def hint_failed(target_url: str) -> None:
    """Publishing failed: do not let the flag stop the next emit from trying again."""
    hint_taken(target_url)
