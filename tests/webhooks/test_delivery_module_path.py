"""The path of a delivery, followed call by call (issue 40, tests/module_path.py): from the hint to the
receiver and the recorded outcome, Ponte's code calls into no module that is already on the stack."""

from __future__ import annotations

import pytest

from tests.module_path import traced
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
    assert "jobs.drain" in followed.modules and "webhooks.outbox.sending" in followed.modules
