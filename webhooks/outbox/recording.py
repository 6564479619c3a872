"""The worker's write of a batch's outcomes: attempts, new states, claims released, each registered
webhook's failure count kept (webhooks.outbox.disable).

Only deliveries still held by the batch's claim (`claim_token`) are written: one whose lease ran out and
was claimed again belongs to its new holder. The deliveries' job store does it (webhooks.outbox.store):
through the ORM in one transaction, or on PostgreSQL in one statement (docs/decisions/0003).
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Model

from webhooks.outbox.store import HookCount, Outcome, store

__all__ = ["HookCount", "record_batch", "record_batch_counted"]


def record_batch(
    states: list[tuple[int, Outcome]], attempts: list[Model], *, token: str, now: datetime
) -> set[int]:
    """Write each delivery's new state and its attempt (`attempts`: DeliveryAttempt rows, at most one
    per delivery), releasing the claim, for the deliveries `token` still holds; their ids."""
    return record_batch_counted(states, attempts, token=token, now=now, webhooks={})[0]


def record_batch_counted(
    states: list[tuple[int, Outcome]],
    attempts: list[Model],
    *,
    token: str,
    now: datetime,
    webhooks: dict[int, str | None],
) -> tuple[set[int], list[HookCount]]:
    """record_batch(), also keeping the failure count of each registered webhook the batch touched
    (`webhooks`: delivery id -> webhook id): (held ids, [(webhook id, failing since, failed attempts)])."""
    return store().record_batch_counted(states, attempts, token=token, now=now, webhooks=webhooks)
