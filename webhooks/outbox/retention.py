"""Retention of the outbox: delivered deliveries, their attempts, dead letters and old events are purged,
in small batches, so the hot tables stay the size of the retention window.

* delivered deliveries (and their attempts) PONTE_DELIVERY_RETENTION_DAYS after delivery (default 7,
  the statistics window: a delivery created inside the window was delivered inside it, so the counts
  never lose a row they show);
* dead letters (and their attempts) 7 days after they died, whatever the setting, and deliveries held
  while their webhook was disabled 7 days after they were written (the window a replay reaches);
* events older than the retention that no delivery refers to any more (a delivery still waiting, being
  retried or kept as a dead letter keeps its event), except the latest event of each conversation
  (session, chat), kept as where it stands (emit() numbers events from the conversation's counter,
  webhooks.models.EventSequence, so purging never changes a number).

Each batch is one short transaction of at most `batch_size` rows (PONTE_DELIVERY_PURGE_BATCH). A batch
of deliveries selects them with FOR UPDATE SKIP LOCKED on PostgreSQL (a row being resent is left for
the next run, never waited for), deletes their attempts, then them. The rows a purge touches are never
the ones the worker claims (those wait or are being sent, in partial indexes of their own), so purging
takes no lock the hot path waits on. Old rows are found through indexes of their own: the delivered
rows' partial index on `delivered_at`, the dead letters' on `dead_at`, `created_at` for events.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from webhooks.models import Delivery, DeliveryAttempt, Event
from webhooks.outbox.rows import column, execute, fetch, from_db, in_list, literal, table, to_db

DEAD_LETTER_RETENTION = timedelta(days=7)

# What was purged in one batch: (what, rows deleted in the batch, seconds the batch took).
Progress = Callable[[str, int, float], None]


@dataclass
class PurgeTotals:
    """Rows deleted by one purge run, per table; `complete` is False when it stopped on its time budget."""

    delivered: int = 0
    dead_letters: int = 0
    held: int = 0  # kept while their webhook was disabled, never attempted
    attempts: int = 0
    events: int = 0
    batches: int = 0
    complete: bool = True
    largest_batch: int = 0
    seconds: float = field(default=0.0)

    @property
    def total(self) -> int:
        return self.delivered + self.dead_letters + self.held + self.attempts + self.events


def retention() -> timedelta:
    return timedelta(days=int(settings.PONTE_DELIVERY_RETENTION_DAYS))


def batch_size() -> int:
    return int(settings.PONTE_DELIVERY_PURGE_BATCH)


def _skip_locked() -> str:
    return " FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""


@cache
def _statements(vendor: str) -> dict[str, str]:
    d, a, e = Delivery, DeliveryAttempt, Event
    dt, at, et = table(d), table(a), table(e)
    d_pk, status = column(d, "id"), column(d, "status")
    e_pk, created = column(e, "id"), column(e, "created_at")
    session, chat, sequence = column(e, "session"), column(e, "chat"), column(e, "sequence")

    def finished(status_value: str, moment: str) -> str:
        # The status is written into the statement, so the partial index on it can be used.
        when = column(d, moment)
        return (
            f"SELECT {d_pk} AS id FROM {dt} WHERE {status} = {literal(status_value)}"
            f" AND {when} < %(cutoff)s"
            f" ORDER BY {when} LIMIT %(limit)s{_skip_locked()}"
        )

    return {
        "delivered": finished(Delivery.Status.DELIVERED, "delivered_at"),
        "dead": finished(Delivery.Status.DEAD, "dead_at"),
        "held": finished(Delivery.Status.HELD, "created_at"),
        "attempts": f"DELETE FROM {at} WHERE {column(a, 'delivery')} IN ({{ids}})",
        "deliveries": f"DELETE FROM {dt} WHERE {d_pk} IN ({{ids}})",
        # Old events are walked in (creation, id) order from where the last batch stopped, by the index
        # alone, then deleted if nothing needs them: one statement with both conditions let PostgreSQL,
        # its statistics stale after a large purge, pick a hash anti-join over both whole tables for each
        # batch. The events kept (still referred to, or last of their conversation) are walked past once
        # per run, not once per batch.
        "old_events": (
            f"SELECT {e_pk} AS id, {created} AS created_at FROM {et}"
            f" WHERE {created} < %(cutoff)s AND ({created}, {e_pk}) > (%(after)s, %(after_id)s)"
            f" ORDER BY {created}, {e_pk} LIMIT %(limit)s"
        ),
        "delete_events": (
            f"DELETE FROM {et} WHERE {e_pk} IN ({{ids}})"
            f" AND NOT EXISTS (SELECT 1 FROM {dt} AS d WHERE d.{column(d, 'event')} = {et}.{e_pk})"
            f" AND EXISTS (SELECT 1 FROM {et} AS later WHERE later.{session} = {et}.{session}"
            f" AND later.{chat} = {et}.{chat} AND later.{sequence} > {et}.{sequence})"
        ),
    }


def _delete_in(statement: str, ids: list[Any]) -> int:
    placeholders, params = in_list("id", ids)
    return execute(_statements(connection.vendor)[statement].format(ids=placeholders), params)


def _deliveries_batch(which: str, cutoff: datetime, limit: int) -> tuple[int, int]:
    """Delete up to `limit` finished deliveries older than `cutoff` and their attempts, in one short
    transaction: (deliveries, attempts)."""
    params = {"cutoff": to_db(Delivery, "delivered_at", cutoff), "limit": limit}
    with transaction.atomic():
        ids = [row["id"] for row in fetch(_statements(connection.vendor)[which], params)]
        if not ids:
            return 0, 0
        attempts = _delete_in("attempts", ids)
        return _delete_in("deliveries", ids), attempts


Position = tuple[datetime, uuid.UUID]


def _events_batch(cutoff: datetime, after: Position, limit: int) -> tuple[int, int, Position | None]:
    """Delete up to `limit` old events no delivery refers to: (examined, deleted, where to go on from)."""
    params = {
        "cutoff": to_db(Event, "created_at", cutoff),
        "after": to_db(Event, "created_at", after[0]),
        "after_id": to_db(Event, "id", after[1]),
        "limit": limit,
    }
    with transaction.atomic():
        rows = fetch(_statements(connection.vendor)["old_events"], params)
        if not rows:
            return 0, 0, None
        deleted = _delete_in("delete_events", [row["id"] for row in rows])
    last = rows[-1]
    reached = (from_db(Event, "created_at", last["created_at"]), from_db(Event, "id", last["id"]))
    return len(rows), deleted, reached


def deliveries_purge(
    *,
    delivered: bool = True,
    dead_letters: bool = True,
    events: bool = True,
    kept_for: timedelta | None = None,
    dead_kept_for: timedelta = DEAD_LETTER_RETENTION,
    limit: int | None = None,
    max_seconds: float | None = None,
    progress: Progress | None = None,
) -> PurgeTotals:
    """Purge what the retention rules let go, batch after batch, until nothing is left or `max_seconds`
    have passed (the next run goes on): delivered deliveries delivered more than `kept_for` ago (default
    PONTE_DELIVERY_RETENTION_DAYS), dead letters dead for more than `dead_kept_for`, and the events
    older than `kept_for` that nothing needs any more."""
    now = timezone.now()
    kept = retention() if kept_for is None else kept_for
    run = _PurgeRun(limit=limit or batch_size(), max_seconds=max_seconds, progress=progress)
    if delivered:
        _deliveries_purge(run, "delivered", "delivered", now - kept)
    if dead_letters:
        _deliveries_purge(run, "dead", "dead_letters", now - dead_kept_for)
        _deliveries_purge(run, "held", "held", now - dead_kept_for)
    if events:
        _events_purge(run, now, now - kept)
    run.totals.seconds = time.monotonic() - run.started
    return run.totals


@dataclass
class _PurgeRun:
    """One purge run's batch size, time budget and running totals."""

    limit: int
    max_seconds: float | None
    progress: Progress | None
    totals: PurgeTotals = field(default_factory=PurgeTotals)
    started: float = field(default_factory=time.monotonic)

    def out_of_time(self) -> bool:
        if self.max_seconds is not None and time.monotonic() - self.started >= self.max_seconds:
            self.totals.complete = False
        return not self.totals.complete

    def note(self, what: str, rows: int, began: float) -> None:
        self.totals.batches += 1
        self.totals.largest_batch = max(self.totals.largest_batch, rows)
        if self.progress is not None:
            self.progress(what, rows, time.monotonic() - began)


def _deliveries_purge(run: _PurgeRun, which: str, total_name: str, cutoff: datetime) -> None:
    """Batches of `which` deliveries (and their attempts) older than `cutoff`, counted in `total_name`."""
    while not run.out_of_time():
        began = time.monotonic()
        deleted, attempts = _deliveries_batch(which, cutoff, run.limit)
        if not deleted:
            break
        setattr(run.totals, total_name, getattr(run.totals, total_name) + deleted)
        run.totals.attempts += attempts
        run.note(total_name, deleted, began)
        if deleted < run.limit:
            break


def _events_purge(run: _PurgeRun, now: datetime, cutoff: datetime) -> None:
    """Batches of events older than `cutoff`, walked in (created_at, id) order."""
    after: Position = (datetime.min.replace(tzinfo=now.tzinfo), uuid.UUID(int=0))
    while not run.out_of_time():
        began = time.monotonic()
        examined, deleted, reached = _events_batch(cutoff, after, run.limit)
        if reached is None:
            break
        run.totals.events += deleted
        run.note("events", deleted, began)
        after = reached
        if examined < run.limit:
            break
