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

Each batch is one short transaction of at most `batch_size` rows (PONTE_DELIVERY_PURGE_BATCH), written
with the ORM on every database. A batch of deliveries selects them with FOR UPDATE SKIP LOCKED on
PostgreSQL (a row being resent is left for
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

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from webhooks.models import Delivery, DeliveryAttempt, Event

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


def _finished(which: str, cutoff: datetime, limit: int) -> list[int]:
    """Ids of up to `limit` `which` deliveries (delivered, dead, held) finished before `cutoff`, oldest
    first, through their partial index; rows locked by another transaction (a resend) are left."""
    moment = {"delivered": "delivered_at", "dead": "dead_at", "held": "created_at"}[which]
    rows = Delivery.objects.filter(status__constant_in=(which,), **{f"{moment}__lt": cutoff})
    locked = rows.select_for_update(skip_locked=True).order_by(moment)
    return list(locked.values_list("pk", flat=True)[:limit])


def _deliveries_batch(which: str, cutoff: datetime, limit: int) -> tuple[int, int]:
    """Delete up to `limit` finished deliveries older than `cutoff` and their attempts, in one short
    transaction: (deliveries, attempts)."""
    with transaction.atomic():
        ids = _finished(which, cutoff, limit)
        if not ids:
            return 0, 0
        attempts, _ = DeliveryAttempt.objects.filter(delivery_id__in=ids).delete()
        deleted, _ = Delivery.objects.filter(pk__in=ids).delete()
        return deleted, attempts


Position = tuple[datetime, uuid.UUID]


def _events_batch(cutoff: datetime, after: Position, limit: int) -> tuple[int, int, Position | None]:
    """Delete up to `limit` old events no delivery refers to: (examined, deleted, where to go on from).

    Old events are walked in (creation, id) order from where the last batch stopped, by the index alone,
    then deleted if nothing needs them: one statement with both conditions let PostgreSQL, its statistics
    stale after a large purge, pick a hash anti-join over both whole tables for each batch. The events
    kept (still referred to, or last of their conversation) are walked past once per run."""
    moment, last_id = after
    old = Event.objects.filter(created_at__lt=cutoff).filter(
        Q(created_at__gt=moment) | Q(created_at=moment, pk__gt=last_id)
    )
    with transaction.atomic():
        rows = list(old.order_by("created_at", "pk").values_list("created_at", "pk")[:limit])
        if not rows:
            return 0, 0, None
        referred = Delivery.objects.filter(event=OuterRef("pk"))
        later = Event.objects.filter(
            session_id=OuterRef("session_id"), chat=OuterRef("chat"), sequence__gt=OuterRef("sequence")
        )
        unneeded = Event.objects.filter(~Exists(referred), Exists(later), pk__in=[pk for _at, pk in rows])
        deleted = unneeded.delete()[1].get(Event._meta.label, 0)
    return len(rows), deleted, rows[-1]


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
