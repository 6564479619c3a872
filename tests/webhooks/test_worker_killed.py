"""A worker killed with SIGKILL in the middle of a delivery loses nothing: the delivery stays claimed
until its lease runs out, then the sweeper hands it to another worker, which sends it with the same id."""

from __future__ import annotations

import time

import pytest

from tests.webhooks.support import wait_for
from webhooks import tasks
from webhooks.models import Delivery
from webhooks.services import emit, webhook_create

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# Short leases so the test need not wait a minute; the sweeper re-enqueues at once when due.
FAST = {"PONTE_WEBHOOK_CLAIM_LEASE_SECONDS": "2", "PONTE_WEBHOOK_SWEEP_GRACE_SECONDS": "0"}


def test_a_delivery_cut_by_sigkill_is_still_delivered_with_the_same_id(
    start_worker, session, make_receiver, allow_loopback
):
    receiver = make_receiver(hang=120)  # holds the first POST open until released
    first = start_worker(env=FAST)
    webhook_create(
        account=session.account, session_id=session.id, url=receiver.url, events=["message"], secret="k"
    )
    event = emit(session_id=session.id, name="message", data={"id": "M-kill"})

    wait_for(receiver.arrived.is_set, what="the first POST to arrive")
    assert Delivery.objects.get(event=event).status == Delivery.Status.SENDING
    first.kill()
    receiver.hang = 0
    receiver.release()

    start_worker(env=FAST)

    def delivered() -> Delivery | None:
        tasks.sweep_deliveries.delay()  # beat's job, sent more often than every 30 s
        time.sleep(0.5)
        return Delivery.objects.filter(event=event, status=Delivery.Status.DELIVERED).first()

    delivery = wait_for(delivered, what="the delivery after the kill")
    ids = [request.headers["x-webhook-id"] for request in receiver.received]
    assert len(ids) == 2
    assert set(ids) == {delivery.dispatch_id}
    # The cut attempt left no row (the worker died before recording it); the one that succeeded did.
    assert [(a.status_code, a.outcome) for a in delivery.attempts.all()] == [(200, "delivered")]
