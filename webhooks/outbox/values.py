"""What the deliveries' job store (webhooks.outbox.store) hands over: a claimed delivery, an attempt's
outcome, a session's targets, a webhook's failure count."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Claimed:
    """What sending and recording one claimed delivery needs."""

    pk: int
    kind: str
    webhook_id: str | None
    secret: str | None
    target_url: str
    payload: Any
    dispatch_id: str
    timeout_seconds: float
    attempt_count: int
    max_attempts: int
    scheduled_at: datetime
    resend_pending: bool
    resend_requested_by_id: int | None
    request_id: str = ""
    created_at: datetime | None = None
    rate_limit: int | None = None  # of its registered webhook, deliveries per second
    previous_secret: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    retry_schedule: Any = None  # of its registered webhook (webhooks.outbox.policy)
    fifo: bool = False  # its registered webhook's ordering is "fifo" (webhooks.outbox.fifo)


@dataclass(frozen=True)
class Outcome:
    """The new state of a delivery after an attempt (None: unchanged)."""

    status: str
    attempt_count: int
    last_status_code: int | None
    last_error: str
    delivered_at: datetime | None = None
    dead_at: datetime | None = None
    next_attempt_at: datetime | None = None


# (id, url, canonical event names, attempts, active, filter, fifo) of a webhook registered on a session.
TargetHook = tuple[str, str, tuple[str, ...], int, bool, dict | None, bool]


@dataclass(frozen=True)
class Targets:
    """What emit() needs of a session, kept per process (webhooks.lookups): whether its instance webhook
    is on, its account (for the live socket's fan-out) and its registered webhooks, oldest first; a
    webhook's attempts under its retry schedule (webhooks.schedules), its filter parsed
    (webhooks.body_filters), fifo: its ordering is "fifo" (webhooks.outbox.fifo)."""

    instance_webhooks_enabled: bool
    account_id: Any
    webhooks: tuple[TargetHook, ...]


# A registered webhook's failure count after a batch: (id, failing since, failed attempts in a row).
HookCount = tuple[str, datetime | None, int]
