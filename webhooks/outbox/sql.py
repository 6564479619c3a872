"""The worker's reads and writes of its deliveries (claim, give back, is anything due, the sweeper's and the
hint's lookups), as the deliveries' job store does them (webhooks.outbox.store: the ORM's, or on
PostgreSQL the claim as one statement). emit()'s are in webhooks.outbox.emit_sql, a batch's record in
webhooks.outbox.recording.
"""

from __future__ import annotations

from datetime import datetime

from webhooks.outbox.store import Claimed, Outcome, store

__all__ = ["Claimed", "Outcome", "claim", "delivery_hint", "due_exists", "sweepable", "unclaim"]


def sweepable(which: str, *, before: datetime, limit: int) -> list[tuple[int, str]]:
    """The sweeper's rows: (id, target URL) of `overdue` deliveries (waiting, due before `before`) or
    `stuck` ones (claimed before `before`), oldest first."""
    return store().sweepable(which, before=before, limit=limit)


def delivery_hint(delivery_id: int) -> tuple[str, str] | None:
    """(status, target URL) of a delivery, or None when it is gone."""
    return store().delivery_hint(delivery_id)


def due_exists(target_url: str, *, now: datetime, lease_cutoff: datetime) -> bool:
    return store().due_exists(target_url, now=now, lease_cutoff=lease_cutoff)


def claim(target_url: str, *, limit: int, token: str, now: datetime, lease_cutoff: datetime) -> list[Claimed]:
    """Claim up to `limit` claimable deliveries of one target, oldest due first: on PostgreSQL the rows
    picked are locked (SKIP LOCKED), so concurrent drains of one target take different rows."""
    return store().claim(target_url, limit=limit, token=token, now=now, lease_cutoff=lease_cutoff)


def unclaim(ids: list[int], *, token: str, status: str) -> None:
    """Give back claimed deliveries that were not sent, as `status`; no attempt is used."""
    store().unclaim(ids, token=token, status=status)
