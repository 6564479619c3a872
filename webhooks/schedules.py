"""Retry schedules of registered webhooks (`retrySchedule`), as stored on the webhook and checked on write.

"seed" is the default schedule (webhooks.outbox.policy.REGISTERED: 0, 1, 4, 16, 64 s, `retryCount`
attempts) exactly: no jitter, since the contract and its tests pin those delays. "extended" is Svix's
(immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 27.5 h); a list gives the webhook's own
delays in seconds between attempts (1 to 20, each at most a day). The last two get +-10 % jitter, so
deliveries that failed together do not come back together, and as many attempts as the schedule has
steps; the delivery becomes a dead letter after the last.
"""

from __future__ import annotations

from typing import Any

from core.errors import ValidationFailed

SEED = "seed"
EXTENDED = "extended"
# Delays between attempts, after the first (immediate) one.
EXTENDED_DELAYS = (5, 300, 1800, 7200, 18000, 36000, 36000)
MAX_SCHEDULE_STEPS = 20
MAX_SCHEDULE_DELAY = 86_400
SCHEDULE_JITTER = 0.1


def schedule_delays(schedule: Any) -> tuple[int, ...] | None:
    """The delays between attempts of a stored schedule (None: the seed's, which `retryCount` sizes)."""
    if schedule == EXTENDED:
        return EXTENDED_DELAYS
    if isinstance(schedule, list) and schedule:
        return tuple(int(delay) for delay in schedule)
    return None


def schedule_attempts(schedule: Any, retry_count: int) -> int:
    """Attempts per event: `retryCount` on the seed's schedule, else one more than its delays."""
    delays = schedule_delays(schedule)
    return retry_count if delays is None else len(delays) + 1


def retry_schedule_clean(value: Any) -> str | list[int]:
    """`retrySchedule` as stored: "seed" (also for null), "extended", or 1 to 20 whole seconds, each
    0 to 86,400."""
    if value is None or value == SEED:
        return SEED
    if value == EXTENDED:
        return EXTENDED
    if not isinstance(value, list):
        raise ValidationFailed('retrySchedule: must be "seed", "extended" or a list of delays in seconds')
    if not 1 <= len(value) <= MAX_SCHEDULE_STEPS:
        raise ValidationFailed(f"retrySchedule: must list 1 to {MAX_SCHEDULE_STEPS} delays")
    for delay in value:
        if isinstance(delay, bool) or not isinstance(delay, int):
            raise ValidationFailed("retrySchedule: each delay must be a whole number of seconds")
        if not 0 <= delay <= MAX_SCHEDULE_DELAY:
            raise ValidationFailed(
                f"retrySchedule: each delay must be between 0 and {MAX_SCHEDULE_DELAY:,} s"
            )
    return list(value)
