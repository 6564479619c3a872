"""A job's schedule: timeout, attempts, backoff and what counts as success (`DeliveryPolicy`), and
`settle`, which turns a client's verdict into the job's end (delivered, retried later, dead), the same
for every client of the job system. Each client names its own schedule (the webhooks' in
webhooks.outbox.policy, the Chatwoot mirror's in integrations.chatwoot.jobs).

`PONTE_WEBHOOK_RETRY_DELAY_SCALE` multiplies every delay (tests run the schedule at 1/100 speed).
A schedule with `jitter` (a fraction, e.g. 0.1) moves each delay by up to that share either way, so
retries of many jobs that failed together do not return together.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from django.conf import settings

Outcome = Literal["delivered", "retry", "give_up"]


@dataclass(frozen=True)
class DeliveryPolicy:
    timeout_seconds: float
    default_attempts: int
    # delays[n] is the wait before attempt n+1 (delays[0] = 0: the first try is immediate).
    delays: tuple[float, ...]
    retry_client_errors: bool
    jitter: float = 0.0

    def delay_before(self, attempt_number: int) -> float:
        """Seconds to wait before attempt `attempt_number` (1-based), scaled for tests, jittered."""
        index = min(max(attempt_number - 1, 0), len(self.delays) - 1)
        delay = self.delays[index] * float(settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE)
        if self.jitter:
            delay *= random.uniform(1 - self.jitter, 1 + self.jitter)  # noqa: S311 (spreading, not secrecy)
        return delay

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
        attempt and never starts a new retry chain). The same for every client of the job system."""
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
