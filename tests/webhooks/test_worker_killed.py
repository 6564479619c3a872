"""A worker killed with SIGKILL in the middle of a delivery loses nothing: the delivery stays claimed
until its lease runs out, then the sweeper hands it to another worker, which sends it with the same id."""

from __future__ import annotations

import time

import pytest

from tests.webhooks.support import wait_for
from webhooks import tasks
from webhooks.models import Delivery
from webhooks.registered.services import webhook_create
from webhooks.services import emit

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


def test_deliveries_cut_by_sigkill_arrive_within_15_s_of_a_new_worker_with_default_settings(
    start_worker, session, make_receiver, allow_loopback
):
    """The issue's fault: a worker killed while a slow receiver takes its time. No beat and no manual
    sweep: the claims' renewals stop with the worker, and the new worker's start-up sweeps find them."""
    receiver = make_receiver(hang=60)  # the first worker's POST hangs until it is killed
    first = start_worker()
    webhook_create(
        account=session.account, session_id=session.id, url=receiver.url, events=["message"], secret="k"
    )
    events = [emit(session_id=session.id, name="message", data={"id": f"M-{n}"}) for n in range(3)]
    wait_for(receiver.arrived.is_set, what="the first POST to arrive")
    claimed = Delivery.objects.filter(event__in=events, status=Delivery.Status.SENDING)
    first_claim = min(claimed.values_list("claimed_at", flat=True))
    time.sleep(3.5)  # past a quarter lease: the running drain has renewed its claim
    assert claimed.count() == 3
    assert min(claimed.values_list("claimed_at", flat=True)) > first_claim
    first.kill()
    cut = len(receiver.received)
    receiver.hang = 1.0  # still slow: every POST now takes a second

    start_worker()
    back = time.monotonic()
    wait_for(
        lambda: Delivery.objects.filter(event__in=events, status=Delivery.Status.DELIVERED).count() == 3,
        timeout=15,
        what="all three deliveries within 15 s of the new worker",
    )
    recovered_in = time.monotonic() - back
    deliveries = list(Delivery.objects.filter(event__in=events))
    ids = [request.headers["x-webhook-id"] for request in receiver.received]
    # None lost, each sent again with its own id: every id received, and only those.
    assert set(ids) == {d.dispatch_id for d in deliveries}
    assert len(ids) >= 3 and cut >= 1
    print(f"delivered {recovered_in:.1f} s after the new worker was ready")
