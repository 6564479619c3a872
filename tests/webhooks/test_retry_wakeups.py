"""The ledger schedules retries (docs/decisions/0024): a retry's time is written on its row, and a drain
that settled a retry (or ran one) wakes its target once, for the earliest time its rows hold; the
hint is never earlier than that time. A worker is played here by running each published hint when
it falls due, so the hints each event costs are counted."""

from __future__ import annotations

import heapq
import time
from typing import Any

import pytest
from celery.signals import before_task_publish
from django.utils import timezone

from webhooks.models import Delivery
from webhooks.outbox import drains as outbox
from webhooks.outbox.hints import DELIVER_TASK
from webhooks.services import emit

pytestmark = pytest.mark.django_db(transaction=True)


class Hints:
    """The deliveries' hints as Celery publishes them: (due at, monotonic; args)."""

    def __init__(self) -> None:
        self.due: list[tuple[float, int, list[Any]]] = []
        self.published = 0
        self.later = 0

    def __call__(
        self, sender: str | None = None, body: Any = None, headers: Any = None, **kwargs: Any
    ) -> None:
        if sender != DELIVER_TASK:
            return
        args = body[0] if isinstance(body, tuple | list) else []
        eta = (headers or {}).get("eta")
        wait = 0.0
        if eta:
            wait = max(0.0, (timezone.datetime.fromisoformat(eta) - timezone.now()).total_seconds())
            self.later += 1
        self.published += 1
        heapq.heappush(self.due, (time.monotonic() + wait, self.published, list(args)))


@pytest.fixture
def hints(settings):
    # Every hint a Celery message, those due now too (not a wake-up on a Redis list, jobs.wakeups): the
    # test plays the worker by running what Celery would have been asked to run, and when.
    settings.PONTE_WAKE_LIST = False
    recorder = Hints()
    before_task_publish.connect(recorder, weak=False)
    yield recorder
    before_task_publish.disconnect(recorder)


def _work(hints: Hints, *, until: float) -> None:
    """Run each hint when it falls due, as a worker does, until nothing is left or `until`."""
    while hints.due and time.monotonic() < until:
        at, _n, args = heapq.heappop(hints.due)
        time.sleep(max(0.0, at - time.monotonic()))
        outbox.delivery_attempt(delivery_id=args[0], target_url=args[1] if len(args) > 1 else "")


def test_failed_deliveries_are_retried_on_the_schedule_without_a_sweep(
    session, hook, receiver, settings, hints
):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0.05  # the seed's 1 s, 4 s as 50 ms, 200 ms
    events = 30
    receiver.statuses = [500] * events + [503] * events  # every event fails twice, then is delivered
    started = time.monotonic()
    for n in range(events):
        emit(session_id=session.id, name="message", data={"id": f"M{n}"})
    _work(hints, until=time.monotonic() + 60)
    elapsed = time.monotonic() - started

    delivered = Delivery.objects.filter(status=Delivery.Status.DELIVERED)
    assert delivered.count() == events
    for delivery in delivered:
        first, second, third = delivery.attempts.order_by("number")
        assert second.started_at >= second.scheduled_at >= first.finished_at  # never before its time
        assert third.started_at >= third.scheduled_at >= second.finished_at
    # What the decision record measures: hints per event, wake-ups among them, time to the last delivery.
    print(f"\nhints per event: {hints.published / events:.2f} ({hints.later} for later), {elapsed:.2f} s")
    assert hints.later < events  # none when the retries fall due while the drain still runs


def test_a_drain_settling_retries_of_different_delays_wakes_its_target_once_for_the_earliest(
    session, hook, receiver, settings, hints
):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 1
    receiver.statuses = [500, 500]
    first = emit(session_id=session.id, name="message", data={"id": "first"})
    second = emit(session_id=session.id, name="message", data={"id": "second"})
    again = Delivery.objects.get(event=second)
    Delivery.objects.filter(pk=again.pk).update(attempt_count=1)  # its next retry waits 4 s, not 1 s
    hints.due.clear()
    hints.published = 0

    outbox.delivery_attempt(delivery_id=again.pk, target_url=again.target_url)

    soonest = Delivery.objects.get(event=first)
    assert soonest.status == Delivery.Status.FAILED and soonest.attempt_count == 1
    assert (hints.published, hints.later) == (1, 1)  # one wake-up, not one per delay
    at, _n, args = hints.due[0]
    assert args[0] == soonest.pk
    left = (soonest.next_attempt_at - timezone.now()).total_seconds()
    assert left - 0.5 <= at - time.monotonic() <= left + 0.05  # when its row says, never before
