"""Deliveries end to end through a real Celery worker process and a real local receiver.

The worker runs the retry schedule at 1/100 speed (PONTE_WEBHOOK_RETRY_DELAY_SCALE=0.01);
test_retry_schedule_real.py keeps the real delays.
"""

from __future__ import annotations

import hashlib
import hmac
import socket
from collections.abc import Iterator
from datetime import timedelta

import pytest
import standardwebhooks

from config.celery import app
from tests.webhooks.support import wait_for
from webhooks import tasks
from webhooks.models import Delivery, Webhook
from webhooks.registered.services import webhook_create
from webhooks.services import emit

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _register(session, url: str, **kwargs) -> Webhook:
    kwargs.setdefault("secret", "topsecret")
    return webhook_create(
        account=session.account, session_id=session.id, url=url, events=["message"], **kwargs
    )


def _settled(event) -> Delivery | None:
    return Delivery.objects.filter(event=event, status__in=["delivered", "dead"]).first()


def _assert_signed(request, secret: str, dispatch_id: str) -> None:
    assert request.headers["x-webhook-id"] == request.headers["webhook-id"] == dispatch_id
    expected = hmac.new(secret.encode(), request.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request.headers["x-webhook-signature"], expected)
    standardwebhooks.Webhook(secret.encode()).verify(request.body, request.headers)


def test_delivered_at_the_first_try(start_worker, session, receiver, allow_loopback):
    start_worker()
    _register(session, receiver.url)
    event = emit(session_id=session.id, name="message", data={"id": "M1", "text": "hello"}, chat="5511@s")

    delivery = wait_for(lambda: _settled(event), what="the delivery")
    assert delivery.status == Delivery.Status.DELIVERED
    assert delivery.attempt_count == 1
    (request,) = receiver.received
    _assert_signed(request, "topsecret", delivery.dispatch_id)
    body = standardwebhooks.Webhook(b"topsecret").verify(request.body, request.headers)
    assert body["event"] == "message"
    assert body["session_id"] == str(session.id)
    assert body["data"]["text"] == "hello"
    (attempt,) = delivery.attempts.all()
    assert (attempt.status_code, attempt.outcome, attempt.error) == (200, "delivered", "")


def test_500_twice_then_200_takes_three_attempts_on_the_schedule(
    start_worker, session, receiver, allow_loopback
):
    receiver.statuses = [500, 500]
    start_worker()
    _register(session, receiver.url)
    event = emit(session_id=session.id, name="message", data={"id": "M2"})

    delivery = wait_for(lambda: _settled(event), what="the delivery")
    assert delivery.status == Delivery.Status.DELIVERED
    attempts = list(delivery.attempts.order_by("number"))
    assert [(a.number, a.status_code, a.outcome) for a in attempts] == [
        (1, 500, "retry"),
        (2, 500, "retry"),
        (3, 200, "delivered"),
    ]
    # Waits of 1 s then 4 s after each failure, scaled by 0.01 in this worker.
    assert attempts[1].scheduled_at == attempts[0].finished_at + timedelta(seconds=0.01)
    assert attempts[2].scheduled_at == attempts[1].finished_at + timedelta(seconds=0.04)
    for attempt in attempts:
        assert attempt.started_at >= attempt.scheduled_at
    assert len(receiver.received) == 3
    for request in receiver.received:  # the same id, a fresh signature each time
        _assert_signed(request, "topsecret", delivery.dispatch_id)
    assert len({r.body for r in receiver.received}) == 1


def _closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


def test_a_receiver_that_is_down_makes_a_dead_letter_after_retry_count(start_worker, session, allow_loopback):
    start_worker()
    _register(session, _closed_port_url(), retry_count=4)
    event = emit(session_id=session.id, name="message", data={"id": "M3"})

    delivery = wait_for(lambda: _settled(event), what="the dead letter")
    assert delivery.status == Delivery.Status.DEAD
    assert delivery.attempt_count == 4
    assert delivery.dead_at is not None
    attempts = list(delivery.attempts.order_by("number"))
    assert [a.outcome for a in attempts] == ["retry", "retry", "retry", "dead"]
    assert all(a.status_code is None and "connection" in a.error for a in attempts)


def test_a_dropped_broker_message_is_delivered_by_the_sweeper(
    start_worker, session, receiver, allow_loopback
):
    from tests.webhooks.support import purge_queues

    _register(session, receiver.url)
    event = emit(session_id=session.id, name="message", data={"id": "M4"})
    purge_queues()  # the hint published on commit is lost
    assert Delivery.objects.get(event=event).status == Delivery.Status.PENDING
    # Nothing in the queue: the worker's own start-up sweep, or beat's next one, must find the row.
    start_worker(env={"PONTE_WEBHOOK_SWEEP_GRACE_SECONDS": "0"})
    tasks.sweep_deliveries.delay()  # what beat sends every 5 s
    delivery = wait_for(lambda: _settled(event), what="the swept delivery")
    assert delivery.status == Delivery.Status.DELIVERED
    assert len(receiver.received) == 1


@pytest.fixture
def filesystem_broker(tmp_path, settings) -> Iterator[dict[str, str]]:
    """Publish through kombu's filesystem transport (the embedded default) whatever REDIS_URL says,
    and give the worker the same folders. As the embedded default has no Redis, hints due now are
    Celery messages too, not wake-ups on a Redis list (jobs.wakeups) the worker would not read."""
    settings.PONTE_WAKE_LIST = False
    folder = tmp_path / "broker" / "queue"
    folder.mkdir(parents=True)
    (tmp_path / "broker" / "processed").mkdir()
    saved = (app.conf.broker_url, app.conf.broker_transport_options)

    def reset_pools() -> None:
        # Forget the cached pools (kombu keeps one per broker URL, so the other one stays usable).
        app._pool = None
        app.amqp._producer_pool = None

    reset_pools()
    app.conf.broker_url = "filesystem://"
    app.conf.broker_transport_options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "processed_folder": str(tmp_path / "broker" / "processed"),
        "store_processed": False,
    }
    yield {"REDIS_URL": "", "CELERY_BROKER_URL": "filesystem://", "PONTE_VAR_DIR": str(tmp_path)}
    reset_pools()
    app.conf.broker_url, app.conf.broker_transport_options = saved


def test_the_worker_delivers_over_the_filesystem_broker(
    filesystem_broker, start_worker, session, receiver, allow_loopback
):
    receiver.statuses = [502]
    start_worker(env=filesystem_broker)
    _register(session, receiver.url)
    event = emit(session_id=session.id, name="message", data={"id": "M5"})

    delivery = wait_for(lambda: _settled(event), what="the delivery over the filesystem broker")
    assert delivery.status == Delivery.Status.DELIVERED
    assert delivery.attempt_count == 2
    assert len(receiver.received) == 2
