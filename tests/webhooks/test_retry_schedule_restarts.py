"""A webhook's own retry schedule outlasts restarts: the worker is killed after every attempt and a new
one started, and the delivery still makes each attempt at its time (the schedule at 1/100 speed,
PONTE_WEBHOOK_RETRY_DELAY_SCALE), then becomes a dead letter after the last; meanwhile the delivery log
says where it stands (`attempts`, `maxAttempts`, `nextAttemptAt`)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from tests.webhooks.sender_depth import register
from tests.webhooks.support import wait_for
from webhooks import tasks
from webhooks.models import Delivery
from webhooks.services import emit

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

SCHEDULE = [200, 400, 600]  # seconds; 2, 4 and 6 s at the workers' 1/100 speed
SCALE = 0.01


def _attempted(delivery_id: int, count: int):
    def check() -> Delivery | None:
        delivery = Delivery.objects.get(pk=delivery_id)
        if delivery.attempt_count >= count and delivery.status != Delivery.Status.SENDING:
            return delivery
        tasks.sweep_deliveries.delay()  # beat's job (every 5 s), run more often here
        time.sleep(0.3)
        return None

    return check


def test_a_custom_schedule_survives_a_worker_restart_after_every_attempt(
    start_worker, keyed_client, admin_key, session, make_receiver, allow_loopback
):
    receiver = make_receiver(default=503)
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, retrySchedule=SCHEDULE)
    worker = start_worker()
    event = emit(session_id=session.id, name="message", data={"id": "M-restarts"})
    delivery_id = Delivery.objects.get(event=event).pk

    planned = []  # when each next attempt was due, as the row said while no worker ran
    for count, step in enumerate(SCHEDULE, start=1):
        delivery = wait_for(_attempted(delivery_id, count), timeout=90, what=f"attempt {count}")
        worker.kill()  # between attempts: the next one is only in the database now
        assert (delivery.status, delivery.attempt_count) == (Delivery.Status.FAILED, count)
        last = delivery.attempts.get(number=count)
        waits = delivery.next_attempt_at - last.finished_at
        assert timedelta(seconds=step * SCALE * 0.9) <= waits <= timedelta(seconds=step * SCALE * 1.1)
        planned.append(delivery.next_attempt_at)
        row = client.get(f"/gateway/deliveries/{delivery_id}").json()
        assert (row["status"], len(row["attempts"]), row["maxAttempts"]) == ("failed", count, 4)
        assert row["nextAttemptAt"] is not None
        worker = start_worker()

    delivery = wait_for(_attempted(delivery_id, 4), timeout=90, what="the last attempt")
    assert delivery.status == Delivery.Status.DEAD  # a dead letter after the schedule's last step
    attempts = list(delivery.attempts.order_by("number"))
    assert [a.number for a in attempts] == [1, 2, 3, 4]
    assert [a.outcome for a in attempts] == ["retry", "retry", "retry", "dead"]
    for attempt, due in zip(attempts[1:], planned, strict=True):
        assert attempt.started_at >= due  # never early, however the restarts fell
    assert len(receiver.received) == 4
    assert {r.headers["webhook-id"] for r in receiver.received} == {delivery.dispatch_id}
    row = client.get(f"/gateway/webhooks/{hook['id']}/deliveries").json()["data"][0]
    assert (row["status"], row["attempts"], row["nextAttemptAt"]) == ("dead", 4, None)
