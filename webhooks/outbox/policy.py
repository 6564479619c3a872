"""The webhooks' schedules (jobs.policy.DeliveryPolicy) and what a webhook target may be.

Registered webhooks: success is a status below 400 within 10 s; anything else is
retried after 0, 1, 4, 16, 64 s (attempts past the fifth keep waiting 64 s) up to `retryCount`
attempts. Instance webhooks: 5 attempts, exponential backoff, 8 s timeout; timeouts, 5xx and 429 are
retried, other 4xx are final.

A registered webhook may pick another schedule (`retrySchedule`, webhooks.schedules): its delays are read
from the webhook when a delivery is claimed, and each next attempt's time is written on the delivery row,
so a schedule outlasts any restart.
"""

from __future__ import annotations

from typing import Any

from core.errors import ValidationFailed
from jobs.policy import DeliveryPolicy
from net.transport import validate_target_url
from webhooks.schedules import SCHEDULE_JITTER, schedule_delays

REGISTERED = DeliveryPolicy(
    timeout_seconds=10.0, default_attempts=5, delays=(0, 1, 4, 16, 64), retry_client_errors=True
)
INSTANCE = DeliveryPolicy(
    timeout_seconds=8.0, default_attempts=5, delays=(0, 2, 4, 8, 16), retry_client_errors=False
)

POLICIES: dict[str, DeliveryPolicy] = {"registered": REGISTERED, "instance": INSTANCE}


def policy_for(kind: str, schedule: Any = None) -> DeliveryPolicy:
    """A delivery kind's policy; a registered webhook's own `schedule` ("seed", None: the seed's)."""
    delays = schedule_delays(schedule) if kind == "registered" else None
    if delays is None:
        return POLICIES[kind]
    return DeliveryPolicy(
        timeout_seconds=REGISTERED.timeout_seconds,
        default_attempts=len(delays) + 1,
        delays=(0, *delays),
        retry_client_errors=True,
        jitter=SCHEDULE_JITTER,
    )


MAX_URL_LENGTH = 2000


def target_url_clean(url: str, *, field: str = "url") -> str:
    """A webhook target as stored: stripped, at most 2000 characters, an address Ponte may reach
    (net.transport's rules). Errors name `field` (net.transport's own messages already start "url")."""
    url = (url or "").strip()
    if len(url) > MAX_URL_LENGTH:
        raise ValidationFailed(f"{field}: at most {MAX_URL_LENGTH} characters")
    try:
        validate_target_url(url)
    except ValidationFailed as exc:
        if field == "url":
            raise
        raise ValidationFailed(f"{field}: {exc.message}") from None
    return url
