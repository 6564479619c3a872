"""Retention: delivered deliveries, their attempts and old events are purged after
PONTE_DELIVERY_RETENTION_DAYS, dead letters after their own 7 days, in bounded batches; everything still
on its way, and the events it needs, stays."""

from __future__ import annotations

import io
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from config.celery import app
from webhooks.models import Delivery, DeliveryAttempt, Event, Webhook
from webhooks.outbox import deliveries as outbox
from webhooks.outbox import drains, retention
from webhooks.services import emit

pytestmark = pytest.mark.django_db


def _delivered(session, *, chat: str = "c1", days_ago: float = 30) -> Delivery:
    """A delivery really sent to the receiver (one attempt recorded), then aged `days_ago` days."""
    event = emit(session_id=session.id, name="message", data={"id": "M", "text": "hi"}, chat=chat)
    delivery = Delivery.objects.get(event=event)
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "delivered"
    _age(delivery, days_ago)
    return delivery


def _waiting(session, status: str, *, chat: str = "c1", days_ago: float = 30, **fields) -> Delivery:
    event = emit(session_id=session.id, name="message", data={"id": "M", "text": "hi"}, chat=chat)
    delivery = Delivery.objects.get(event=event)
    Delivery.objects.filter(pk=delivery.pk).update(status=status, **fields)
    _age(delivery, days_ago)
    return delivery


def _age(delivery: Delivery, days_ago: float) -> None:
    moment = timezone.now() - timedelta(days=days_ago)
    Event.objects.filter(pk=delivery.event_id).update(created_at=moment)
    Delivery.objects.filter(pk=delivery.pk).update(created_at=moment)
    Delivery.objects.filter(pk=delivery.pk, status=Delivery.Status.DELIVERED).update(delivered_at=moment)


def _latest_event(session, chat: str = "c1") -> Event:
    """A recent event in the conversation, so the older ones are not its last."""
    return emit(session_id=session.id, name="message", data={"id": "L", "text": "latest"}, chat=chat)


def _exists(obj) -> bool:
    return type(obj).objects.filter(pk=obj.pk).exists()


def test_delivered_deliveries_their_attempts_and_events_go_after_the_retention(hook, session):
    old = _delivered(session, days_ago=8)
    recent = _delivered(session, days_ago=6)
    latest = _latest_event(session)
    assert DeliveryAttempt.objects.filter(delivery=old).count() == 1

    totals = retention.deliveries_purge()

    assert (totals.delivered, totals.attempts, totals.events) == (1, 1, 1)
    assert not _exists(old)
    assert not DeliveryAttempt.objects.filter(delivery_id=old.pk).exists()
    assert not Event.objects.filter(pk=old.event_id).exists()
    assert _exists(recent) and Event.objects.filter(pk=recent.event_id).exists()
    assert DeliveryAttempt.objects.filter(delivery=recent).count() == 1
    assert _exists(latest)


def test_deliveries_still_on_their_way_and_recent_dead_letters_stay_with_their_events(hook, session):
    now = timezone.now()
    waiting = [
        _waiting(session, Delivery.Status.PENDING),
        _waiting(session, Delivery.Status.FAILED, attempt_count=2),
        _waiting(session, Delivery.Status.SENDING, claimed_at=now, claim_token="t"),
        _waiting(session, Delivery.Status.DEAD, dead_at=now - timedelta(days=6)),
    ]
    old_dead = _waiting(session, Delivery.Status.DEAD, dead_at=now - timedelta(days=8))
    _latest_event(session)

    totals = retention.deliveries_purge()

    assert (totals.delivered, totals.dead_letters, totals.events) == (0, 1, 1)
    for delivery in waiting:
        assert _exists(delivery), delivery.status
        assert Event.objects.filter(pk=delivery.event_id).exists(), delivery.status
    assert not _exists(old_dead)
    assert not Event.objects.filter(pk=old_dead.event_id).exists()


def test_an_event_stays_while_one_of_its_deliveries_still_waits(hook, session, make_receiver):
    second = make_receiver()
    Webhook.objects.create(account=session.account, session=session, url=second.url, events=["message"])
    event = emit(session_id=session.id, name="message", data={"id": "M", "text": "hi"}, chat="c1")
    first, other = Delivery.objects.filter(event=event).order_by("pk")
    assert drains.delivery_attempt(delivery_id=first.pk) == "delivered"
    Delivery.objects.filter(pk=other.pk).update(status=Delivery.Status.FAILED, attempt_count=1)
    _age(first, 30)
    _age(other, 30)
    _latest_event(session)

    totals = retention.deliveries_purge()

    assert (totals.delivered, totals.events) == (1, 0)
    assert not _exists(first)
    assert Event.objects.filter(pk=event.pk).exists()
    assert _exists(other)


def test_the_last_event_of_a_conversation_stays_so_its_sequence_goes_on(hook, session):
    deliveries = [_delivered(session, chat="quiet") for _ in range(3)]
    last_event = Event.objects.get(pk=deliveries[-1].event_id)
    assert last_event.sequence == 3

    retention.deliveries_purge()

    assert list(Event.objects.filter(chat="quiet").values_list("pk", flat=True)) == [last_event.pk]
    following = emit(session_id=session.id, name="message", data={"id": "N", "text": "again"}, chat="quiet")
    assert following.sequence == 4


def test_old_events_without_deliveries_go_too(session):
    events = [emit(session_id=session.id, name="connected", data={}) for _ in range(3)]
    Event.objects.filter(pk__in=[e.pk for e in events]).update(created_at=timezone.now() - timedelta(days=9))

    assert retention.deliveries_purge().events == 2
    assert list(Event.objects.values_list("pk", flat=True)) == [events[-1].pk]


def test_each_batch_deletes_at_most_its_limit(hook, session):
    for _ in range(7):
        _delivered(session)
    _latest_event(session)
    batches: list[tuple[str, int]] = []

    totals = retention.deliveries_purge(limit=3, progress=lambda what, rows, _s: batches.append((what, rows)))

    assert [rows for what, rows in batches if what == "delivered"] == [3, 3, 1]
    assert [rows for what, rows in batches if what == "events"] == [3, 3, 1]
    assert totals.largest_batch == 3
    assert totals.delivered == totals.events == totals.attempts == 7


def test_the_retention_follows_the_setting(hook, session, settings):
    settings.PONTE_DELIVERY_RETENTION_DAYS = 30
    kept, purged = _delivered(session, days_ago=20), _delivered(session, days_ago=31)
    _latest_event(session)

    assert retention.deliveries_purge().delivered == 1
    assert _exists(kept) and not _exists(purged)


def test_a_purge_stops_on_its_time_budget_and_the_next_run_goes_on(hook, session):
    for _ in range(3):
        _delivered(session)
    _latest_event(session)

    first = retention.deliveries_purge(limit=1, max_seconds=0)
    assert not first.complete and first.total == 0
    assert retention.deliveries_purge(limit=1).delivered == 3


def test_the_dead_letter_job_purges_only_dead_letters(hook, session):
    now = timezone.now()
    dead = _waiting(session, Delivery.Status.DEAD, dead_at=now - timedelta(days=8))
    DeliveryAttempt.objects.create(delivery=dead, number=1, scheduled_at=now, outcome="dead")
    delivered = _delivered(session)

    assert outbox.dead_letters_purge() == 1
    assert not _exists(dead) and not DeliveryAttempt.objects.filter(delivery_id=dead.pk).exists()
    assert _exists(delivered)


def test_the_command_purges_and_prints_its_progress(hook, session):
    for _ in range(3):
        _delivered(session)
    _latest_event(session)
    out = io.StringIO()

    call_command("purge_deliveries", "--batch", "2", stdout=out)

    lines = out.getvalue().splitlines()
    assert "  delivered deliveries: 2 purged (2 in" in lines[0]
    assert "  delivered deliveries: 3 purged (1 in" in lines[1]
    assert lines[-1].startswith(
        "Purged 3 delivered deliveries, 0 dead letters, 0 held deliveries, 3 attempts and 3 events"
    )
    assert list(Delivery.objects.values_list("status", flat=True)) == ["pending"]  # the latest event's


def test_beat_runs_the_purge_every_hour():
    job = PeriodicTask.objects.get(name="webhooks: purge delivered deliveries and old events")
    assert job.enabled and job.task == "webhooks.purge_delivered"
    assert (job.interval.every, job.interval.period) == (1, "hours")
    app.loader.import_default_modules()  # the worker's autodiscovery
    assert "webhooks.purge_delivered" in app.tasks


@pytest.mark.django_db(transaction=True)
def test_a_purge_passes_over_a_row_another_transaction_holds(hook, session):
    """A delivered row being resent (locked by the admin's UPDATE) is left for the next run: the purge
    never waits on it. On SQLite, where a writer holds the whole database, there are no row locks."""
    held, free = _delivered(session), _delivered(session)
    _latest_event(session)
    if connection.vendor != "postgresql":
        assert retention.deliveries_purge().delivered == 2
        return
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                Delivery.objects.select_for_update().get(pk=held.pk)
                locked.set()
                release.wait(30)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(10)
        totals = retention.deliveries_purge()
    finally:
        release.set()
        holder.join()
    assert totals.delivered == 1
    assert _exists(held) and not _exists(free)
    assert retention.deliveries_purge().delivered == 1
