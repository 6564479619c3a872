"""The path of a delivery, followed call by call (issue 40, tests/module_path.py): from the hint to the
receiver and the recorded outcome, Ponte's code calls into no module that is already on the stack, and
the number of module entries is pinned (a budget). `pytest -s` prints the path."""

from __future__ import annotations

import pytest

from tests.module_path import entry_budget, traced
from webhooks.models import Delivery, Webhook
from webhooks.outbox import drains as outbox
from webhooks.services import emit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _loopback(allow_loopback):
    pass


def _deliver(session, url: str, message_id: str) -> str:
    emit(session_id=session.id, name="message", data={"id": message_id})
    pk = Delivery.objects.filter(target_url=url, status=Delivery.Status.PENDING).values_list("pk", flat=True)[
        0
    ]
    return outbox.delivery_attempt(delivery_id=pk, target_url=url)


def test_a_delivery_calls_into_no_module_already_on_its_stack(session, receiver):
    Webhook.objects.create(account=session.account, session=session, url=receiver.url, events=["message"])
    assert _deliver(session, receiver.url, "M0") == "delivered"  # warm: imports, the connection
    emit(session_id=session.id, name="message", data={"id": "M1"})
    pk = Delivery.objects.get(target_url=receiver.url, status=Delivery.Status.PENDING).pk
    with traced() as followed:
        outcome = outbox.delivery_attempt(delivery_id=pk, target_url=receiver.url)
    assert outcome == "delivered"
    print(followed.describe())
    assert followed.chains == []
    assert len(followed.calls) <= entry_budget(46, redis=9, postgresql=2), followed.describe()
    assert "jobs.drain" in followed.modules and "webhooks.outbox.sending" in followed.modules


def test_the_follower_sees_a_call_back_into_a_module_still_on_the_stack():
    """The shape the drain had before (webhooks.outbox.deliveries → jobs.drain → deliveries), built from
    two modules' worth of functions (their globals name them as Ponte's modules)."""
    queue: dict = {"__name__": "webhooks.outbox.probe_queue"}
    loop: dict = {"__name__": "jobs.probe_loop"}
    source = "def attempt():\n    return 1\ndef start():\n    return run(attempt)"
    exec(compile(source, "probe_queue.py", "exec"), queue)
    exec(compile("def run(turn):\n    return turn() + 1", "probe_loop.py", "exec"), loop)
    queue["run"] = loop["run"]
    with traced() as followed:
        assert queue["start"]() == 2
    back = "webhooks.outbox.probe_queue"
    assert followed.entries == [back, "jobs.probe_loop", back]
    assert followed.reentries == ["webhooks.outbox.probe_queue"]
    assert followed.repeats == {"webhooks.outbox.probe_queue": 2}


def test_a_delivery_of_a_webhook_that_keeps_no_order_asks_nothing_of_the_fifo_queue(session, receiver):
    """Releasing a fifo chat's next delivery built (and threw away) a query on every batch: 0.4 ms, a
    tenth of the worker's CPU per event (bench/profile_event_path.py), for webhooks that keep no order."""
    Webhook.objects.create(account=session.account, session=session, url=receiver.url, events=["message"])
    assert _deliver(session, receiver.url, "M0") == "delivered"
    emit(session_id=session.id, name="message", data={"id": "M1"})
    pk = Delivery.objects.get(target_url=receiver.url, status=Delivery.Status.PENDING).pk
    with traced() as followed:
        assert outbox.delivery_attempt(delivery_id=pk, target_url=receiver.url) == "delivered"
    assert "webhooks.outbox.fifo" not in followed.modules
