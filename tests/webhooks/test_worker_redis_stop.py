"""A Celery worker rides out its broker stopping for 15 s (issue 39, item 9): no exit, no person needed.

The worker is a real `celery worker` whose broker (and cache) is a private redis-server the test stops
and starts again on the same port; one delivery is in the worker's hands (its receiver holding the POST)
when Redis goes, the case where kombu used to end the worker with "Unrecoverable error". Once Redis is
back, the same worker process, never restarted, takes a task published after the restart and delivers
what waited. config/settings/apps.py holds the broker connection settings this relies on.
"""

from __future__ import annotations

import time

import pytest

from tests.webhooks.support import wait_for
from webhooks.models import Delivery
from webhooks.outbox.hints import SWEEP_TASK
from webhooks.registered.services import webhook_create
from webhooks.services import emit

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

OUTAGE_SECONDS = 15


def _publish_sweep(broker_url: str) -> None:
    """Publish the sweeper's task on the private broker (this test process's own broker is another)."""
    from config.celery import app

    with app.connection_for_write(broker_url) as connection:
        app.send_task(SWEEP_TASK, kwargs={"grace_seconds": 0}, connection=connection)


def test_a_worker_stays_up_through_a_15_second_redis_stop_and_delivers_what_is_queued_after(
    redis_server, start_worker, session, make_receiver, allow_loopback
):
    receiver = make_receiver(hang=120)  # the first POST is held open while Redis goes away
    broker = {"REDIS_URL": redis_server.url, "CELERY_BROKER_URL": redis_server.url}
    worker = start_worker(env=broker)
    webhook_create(
        account=session.account, session_id=session.id, url=receiver.url, events=["message"], secret="k"
    )
    before = emit(session_id=session.id, name="message", data={"id": "M-before"})
    _publish_sweep(redis_server.url)
    wait_for(receiver.arrived.is_set, what="the first POST to reach the receiver")

    redis_server.stop()
    stopped = time.monotonic()
    receiver.hang = 0
    receiver.release()  # the task ends while the broker is away: its acknowledgement cannot be sent
    during = emit(session_id=session.id, name="message", data={"id": "M-during"})
    while time.monotonic() - stopped < OUTAGE_SECONDS:
        assert worker.process.poll() is None, (
            f"the worker exited during the outage (log {worker.log}):\n{worker.output()[-4000:]}"
        )
        time.sleep(0.5)
    redis_server.start()  # the same port, empty: every queued message was lost with the old server

    after = emit(session_id=session.id, name="message", data={"id": "M-after"})
    _publish_sweep(redis_server.url)  # queued after the restart, to the same worker
    events = (before, during, after)
    try:
        wait_for(
            lambda: Delivery.objects.filter(event__in=events, status=Delivery.Status.DELIVERED).count() == 3,
            timeout=90,
            what="every delivery after Redis came back",
        )
    except AssertionError:
        rows = list(Delivery.objects.values_list("event__data", "status"))
        raise AssertionError(f"{rows}\nworker:\n{worker.output()[-4000:]}") from None
    assert worker.process.poll() is None, worker.output()[-4000:]
    assert "Unrecoverable error" not in worker.output()
    assert "Connected to redis://" in worker.output().split("Connection to broker lost", 1)[-1]
