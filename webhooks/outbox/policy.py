"""Schedules of the outbox's clients: timeout, attempts, backoff and what counts as success.

Registered webhooks: success is a status below 400 within 10 s; anything else is
retried after 0, 1, 4, 16, 64 s (attempts past the fifth keep waiting 64 s) up to `retryCount`
attempts. Instance webhooks: 5 attempts, exponential backoff, 8 s timeout; timeouts, 5xx and 429 are
retried, other 4xx are final.

The Chatwoot mirror's jobs retry on the registered-webhook schedule. `settle` turns a client's verdict
into the job's end (delivered, retried later, dead), the same for every client.

`PONTE_WEBHOOK_RETRY_DELAY_SCALE` multiplies every delay (tests run the schedule at 1/100 speed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from django.conf import settings

from core.errors import ValidationFailed
from net.transport import validate_target_url

Outcome = Literal["delivered", "retry", "give_up"]


@dataclass(frozen=True)
class DeliveryPolicy:
    timeout_seconds: float
    default_attempts: int
    # delays[n] is the wait before attempt n+1 (delays[0] = 0: the first try is immediate).
    delays: tuple[float, ...]
    retry_client_errors: bool

    def delay_before(self, attempt_number: int) -> float:
        """Seconds to wait before attempt `attempt_number` (1-based), scaled for tests."""
        index = min(max(attempt_number - 1, 0), len(self.delays) - 1)
        return self.delays[index] * float(settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE)

    def outcome(self, *, status: int | None, error: str | None) -> Outcome:
        if error is None and status is not None and status < 400:
            return "delivered"
        if is_client_error(status):
            return "retry" if self.retry_client_errors else "give_up"
        return "retry"

    def settle(
        self, verdict: Outcome, *, number: int, max_attempts: int, last_chance: bool = False
    ) -> Settled:
        """What attempt `number` of a job comes to, judged `verdict` by its client: delivered, retried
        after a delay on this schedule, or dead (attempts used up; `last_chance`: a resend, which is one
        attempt and never starts a new retry chain). The same for every client of the outbox."""
        if verdict == "retry" and (last_chance or number >= max_attempts):
            verdict = "give_up"
        if verdict == "delivered":
            return Settled("delivered", None)
        if verdict == "retry":
            return Settled("retry", self.delay_before(number + 1))
        return Settled("dead", None)


@dataclass(frozen=True)
class Settled:
    """An attempt's end: "delivered", "retry" (after `delay` seconds) or "dead"."""

    outcome: Literal["delivered", "retry", "dead"]
    delay: float | None


# A timeout (408) or a throttle (429) is the receiver's passing state, unlike the rest of 4xx.
PASSING_CLIENT_ERRORS = (408, 429)


def is_client_error(status: int | None) -> bool:
    """A 4xx that says the request itself is wrong, so sending it again the same way will not help."""
    return status is not None and 400 <= status < 500 and status not in PASSING_CLIENT_ERRORS


REGISTERED = DeliveryPolicy(
    timeout_seconds=10.0, default_attempts=5, delays=(0, 1, 4, 16, 64), retry_client_errors=True
)
INSTANCE = DeliveryPolicy(
    timeout_seconds=8.0, default_attempts=5, delays=(0, 2, 4, 8, 16), retry_client_errors=False
)

POLICIES: dict[str, DeliveryPolicy] = {"registered": REGISTERED, "instance": INSTANCE}


def policy_for(kind: str) -> DeliveryPolicy:
    return POLICIES[kind]


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
