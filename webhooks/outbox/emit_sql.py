"""emit()'s reads and writes: what a session's events go to, and the event with its deliveries, as the
deliveries' job store does them (webhooks.outbox.store: the ORM's, or on PostgreSQL the event, its
number and its deliveries in one statement).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Model

from webhooks.outbox.store import Targets, store

__all__ = ["Targets", "event_insert", "event_insert_is_atomic", "session_targets"]


def session_targets(session_id: Any) -> Targets:
    """Kept per process (webhooks.lookups)."""
    return store().session_targets(session_id)


def event_insert_is_atomic() -> bool:
    """event_insert() is one statement (PostgreSQL): emit() needs no transaction of its own around it."""
    return store().event_insert_is_atomic


def event_insert(
    event: Model, deliveries: list[Model], *, numbered: Callable[[Model], None] | None = None
) -> None:
    """Write a new event, numbered next in its (session, chat), and its deliveries; sets the event's
    `sequence` and the deliveries' keys. `numbered(event)` runs between the counter and the inserts,
    while the counter's row lock keeps the chat's other events waiting (a fifo webhook's check of the
    chat's earlier deliveries, webhooks.outbox.fifo)."""
    store().event_insert(event, deliveries, numbered=numbered)
