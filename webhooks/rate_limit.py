"""Per-webhook rate limits (`rateLimit`, deliveries per second): one pace per webhook shared by every
worker process, so however many drains send to it at once it never gets more than its limit.

The pace is a schedule of send slots one `spacing` apart (spacing = (1 + margin) / limit seconds): a
drain reserves the next free slot before each POST and sleeps until it comes, or, when the slot is more
than PONTE_WEBHOOK_RATE_LIMIT_MAX_WAIT_SECONDS away, reserves nothing and gives the rest of its batch
back for later (webhooks.outbox.deliveries): deferred, not failed, no attempt used. Evenly spaced slots
(no bursts) are what keeps every one-second window at or under the limit; the margin
(PONTE_WEBHOOK_RATE_LIMIT_MARGIN, default 0.1) absorbs the jitter between a slot and its request's
arrival (thread scheduling, the network), at the price of that much throughput.

The slots live in Redis (one Lua script: read, move, write as one step, on Redis's own clock) when
REDIS_URL is set; otherwise, or while Redis is away, in the database (`WebhookPace`, one conditional
UPDATE per slot), which every worker of the embedded default shares too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

import redis
from django.conf import settings
from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from config.breaker import Breaker
from webhooks.models import Delivery, WebhookPace

logger = logging.getLogger(__name__)

MICROS = 1_000_000

# KEYS[1]: the webhook's next free slot (µs, Redis clock); ARGV: spacing and the longest wait (µs).
# Returns {1, wait} with the slot reserved, or {0, wait} with nothing reserved.
_RESERVE = """
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000000 + tonumber(now_parts[2])
local spacing = tonumber(ARGV[1])
local slot = tonumber(redis.call('GET', KEYS[1]) or '0')
if slot < now then slot = now end
local wait = slot - now
if wait > tonumber(ARGV[2]) then return {0, wait} end
redis.call('SET', KEYS[1], slot + spacing, 'PX', math.floor((wait + spacing) / 1000) + 1000)
return {1, wait}
"""

_redis_breaker = Breaker("Rate limit Redis", open_seconds=float(settings.PONTE_REDIS_RETRY_SECONDS))
_local = threading.local()


def spacing_us(limit: int) -> int:
    """Microseconds between two slots of a webhook limited to `limit` per second."""
    return int((1 + float(settings.PONTE_WEBHOOK_RATE_LIMIT_MARGIN)) * MICROS / limit)


# --- Reserving a slot ----------------------------------------------------------------------------


def _client() -> Any:
    client = getattr(_local, "client", None)
    if client is None:
        client = _local.client = redis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=0.5, socket_timeout=2
        )
        _local.script = client.register_script(_RESERVE)
    return client


def _reserve_redis(webhook_id: str, spacing: int, max_wait: int) -> tuple[bool, int] | None:
    """(reserved, wait µs) from Redis; None when Redis cannot answer (the database decides)."""
    if not _redis_breaker.available():
        return None
    try:
        _client()
        granted, wait = _local.script(keys=[f"ponte:webhooks:rate:{webhook_id}"], args=[spacing, max_wait])
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as error:
        _redis_breaker.failed(error)
        logger.warning("Rate limits fall back to the database while Redis is away")
        return None
    _redis_breaker.succeeded()
    return bool(granted), int(wait)


def _reserve_db(webhook_id: str, spacing: int, max_wait: int) -> tuple[bool, int]:
    """(reserved, wait µs) from the webhook's `WebhookPace` row: one conditional UPDATE takes the slot
    (PostgreSQL locks the row; SQLite serialises writers), so two workers never get the same one."""
    now = int(time.time() * MICROS)
    paces = WebhookPace.objects.filter(webhook_id=webhook_id)
    with transaction.atomic():
        moved = paces.filter(next_at_us__lte=now + max_wait).update(
            next_at_us=Greatest(F("next_at_us"), Value(now)) + spacing
        )
        taken = paces.values_list("next_at_us", flat=True).first()
    if taken is None:  # the webhook's first limited send: its row, then the slot
        WebhookPace.objects.bulk_create([WebhookPace(webhook_id=webhook_id)], ignore_conflicts=True)
        return _reserve_db(webhook_id, spacing, max_wait)
    if not moved:
        return False, taken - now
    return True, max(0, taken - spacing - now)


def _max_wait_us() -> int:
    return int(float(settings.PONTE_WEBHOOK_RATE_LIMIT_MAX_WAIT_SECONDS) * MICROS)


def reserve(webhook_id: str, limit: int) -> tuple[bool, float]:
    """Reserve the webhook's next send slot unless it is more than
    PONTE_WEBHOOK_RATE_LIMIT_MAX_WAIT_SECONDS away: (reserved, seconds until that slot)."""
    spacing, max_wait = spacing_us(limit), _max_wait_us()
    answer = _reserve_redis(webhook_id, spacing, max_wait) if settings.REDIS_URL else None
    if answer is None:
        answer = _reserve_db(webhook_id, spacing, max_wait)
    granted, wait = answer
    return granted, wait / MICROS


def pace(delivery: Any) -> float | None:
    """Before a delivery's POST: wait for its webhook's next slot and return None (send now), or,
    when that slot is too far, return the seconds after which to look again (nothing reserved: the
    slot is then within reach). Deliveries of webhooks without a limit go at once."""
    limit = delivery.rate_limit  # read with the claim
    if not limit or delivery.webhook_id is None:
        return None
    granted, wait = reserve(delivery.webhook_id, limit)
    if not granted:
        return max(0.05, wait - _max_wait_us() / MICROS / 2)
    if wait > 0:
        time.sleep(wait)
    return None


def defer(deliveries: Iterable[Any], *, token: str, seconds: float) -> None:
    """Give claimed deliveries back to wait `seconds` for their webhook's pace: not an attempt (their
    count and status stay as they were), due again then. Only rows this claim still holds."""
    rows = list(deliveries)
    due = timezone.now() + timedelta(seconds=seconds)
    for status, attempted in ((Delivery.Status.PENDING, False), (Delivery.Status.FAILED, True)):
        ids = [d.pk for d in rows if (d.attempt_count > 0) == attempted]
        if ids:
            Delivery.objects.filter(pk__in=ids, claim_token=token, status=Delivery.Status.SENDING).update(
                status=status, claimed_at=None, claim_token="", next_attempt_at=due
            )
