"""The path of a send and of an inbound event, followed call by call (issue 40, tests/module_path.py):
Ponte's code calls into no module that is already on the stack (no callback, no A → B → A), and the
number of module entries is pinned (a budget, as the statement counts are: tests/messaging/
test_send_path.py), so a new detour shows up here. `pytest -s` prints each path."""

from __future__ import annotations

import pytest

from tests.messaging.contract import CUSTOMER
from tests.module_path import entry_budget, traced
from webhooks.models import Webhook

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(connected_session):
    session = connected_session()
    Webhook.objects.create(
        account=session.account, session=session, url="http://127.0.0.1:9/hook", events=["message"]
    )
    return session


def _traced_post(client, path: str, body: dict):
    client.post(path, body, format="json")  # warm: imports, the key, the engine
    with traced() as followed:
        reply = client.post(path, body, format="json")
    assert reply.status_code in (200, 201), reply.content
    print(followed.describe())
    return followed


def test_a_send_calls_into_no_module_already_on_its_stack(admin_client, session):
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "traced"}
    followed = _traced_post(admin_client, "/api/messages/send", body)
    assert followed.chains == []
    assert len(followed.calls) <= entry_budget(84, redis=12), followed.describe()
    assert "messaging.engines.sandbox" in followed.modules and "webhooks.outbox.store" in followed.modules


def test_an_inbound_event_calls_into_no_module_already_on_its_stack(admin_client, session):
    body = {"event": "message", "from": CUSTOMER, "text": "traced"}
    followed = _traced_post(admin_client, f"/api/sandbox/sessions/{session.pk}/inbound", body)
    assert followed.chains == []
    assert len(followed.calls) <= entry_budget(87, redis=12), followed.describe()
    assert "messaging.services.events" in followed.modules and "webhooks.outbox.store" in followed.modules
