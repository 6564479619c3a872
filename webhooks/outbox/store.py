"""The deliveries' job store: every read and write the outbox makes of its rows, behind one interface.

emit() writes an event with its deliveries, the worker claims a target's due deliveries and records their
outcomes, the sweeper finds the overdue and the stuck ones. `DeliveryStore` says what each of those does;
`webhooks.outbox.store_orm.OrmStore` does all of it with the ORM, on any database, and is the default.
`webhooks.outbox.store_pg.PostgresStore` is the same store with three operations written as one
PostgreSQL statement each (the event with its deliveries, the claim, the batch's record) and the worker's
two per-batch reads prepared, kept because the benches show they pay (docs/decisions/0026). Both run under
the same tests (tests/webhooks/test_store.py).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from django.conf import settings
from django.db import connection
from django.db.models import Model

from webhooks.outbox.store_orm import OrmStore
from webhooks.outbox.store_pg import PostgresStore
from webhooks.outbox.values import Claimed, HookCount, Outcome, Targets

__all__ = ["Claimed", "DeliveryStore", "HookCount", "Outcome", "Targets", "store"]

# --- The interface ---------------------------------------------------------------------------------


class DeliveryStore(Protocol):
    """The outbox's rows. Every method runs in the caller's transaction when there is one."""

    #: event_insert() is one statement, atomic by itself: emit() opens no transaction around it.
    event_insert_is_atomic: bool

    def session_targets(self, session_id: Any) -> Targets: ...

    def event_insert(
        self, event: Model, deliveries: list[Model], *, numbered: Callable[[Model], None] | None = None
    ) -> None:
        """Write a new event, numbered next in its (session, chat) by the chat's counter row, and its
        deliveries; set the event's `sequence` and the deliveries' keys. `numbered(event)` runs after
        the counter is raised and before the rows are written, while the counter's row lock keeps the
        chat's other events waiting (a fifo webhook's check, webhooks.outbox.fifo)."""
        ...

    def claim(
        self, target_url: str, *, limit: int, token: str, now: datetime, lease_cutoff: datetime
    ) -> list[Claimed]:
        """Claim up to `limit` of one target's deliveries, waiting and due or held by a claim older than
        `lease_cutoff`, oldest due first; two claims never take one row."""
        ...

    def unclaim(self, ids: list[int], *, token: str, status: str) -> None: ...

    def due_exists(self, target_url: str, *, now: datetime, lease_cutoff: datetime) -> bool: ...

    def delivery_hint(self, delivery_id: int) -> tuple[str, str] | None: ...

    def sweepable(self, which: str, *, before: datetime, limit: int) -> list[tuple[int, str]]: ...

    def record_batch_counted(
        self,
        states: list[tuple[int, Outcome]],
        attempts: list[Model],
        *,
        token: str,
        now: datetime,
        webhooks: dict[int, str | None],
    ) -> tuple[set[int], list[HookCount]]:
        """Write each delivery's new state and its attempt, releasing the claim, for the deliveries
        `token` still holds, and keep the failure count of each registered webhook they belong to."""
        ...


# One of each per process: they hold nothing but their methods.
STORES: dict[str, DeliveryStore] = {"orm": OrmStore(), "postgresql": PostgresStore()}


def store() -> DeliveryStore:
    """The store for the default database: PONTE_OUTBOX_STORE names one ("orm", "postgresql"), else the
    one-statement store on PostgreSQL and the ORM's elsewhere."""
    return STORES[
        settings.PONTE_OUTBOX_STORE or ("postgresql" if connection.vendor == "postgresql" else "orm")
    ]
