"""Chatwoot webhooks holding what the database cannot store or what has the wrong shape: the odd parts
are cleaned (NUL removed, numbers clamped, logged) or the event ignored; never a 5xx, and a good agent
message in the same body still reaches the customer."""

from __future__ import annotations

import json
import logging

import pytest

from integrations.chatwoot.models import MirrorJob
from messaging.models import Message
from tests.integrations.support import CUSTOMER, drain_all, inbound

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation_id(admin_client, integration, chatwoot) -> int:
    inbound(admin_client, integration.session, text="Oi", messageId="3EB0CUSTOMERODD01")
    drain_all(integration)
    (cid,) = chatwoot.conversations
    return cid


def _post(client, integration, raw: bytes):
    return client.generic(
        "POST", f"/integrations/chatwoot/{integration.webhook_token}", raw, content_type="application/json"
    )


def test_a_nul_in_an_agent_message_is_removed_and_the_message_sent(
    api_client, integration, chatwoot, conversation_id, caplog
):
    payload = chatwoot.agent_message(conversation_id, "Bom\u0000 dia")
    with caplog.at_level(logging.WARNING):
        response = _post(api_client, integration, json.dumps(payload).encode())
    assert response.status_code == 200, response.content
    assert response.json()["result"] == "queued"
    assert "NUL" in caplog.text
    drain_all(integration)
    sent = Message.objects.get(session=integration.session, from_me=True)
    assert (sent.chat, sent.content["text"]) == (f"{CUSTOMER}@s.whatsapp.net", "Bom dia")


@pytest.mark.parametrize(
    "change",
    [
        {"id": 10**30},
        {"id": "not-a-number"},
        {"id": {"nested": 1}},
        {"id": -5},
        {"message_type": ["outgoing"]},
        {"conversation": ["a", "list"]},
        {"conversation": {"id": "abc", "meta": "not a dict"}},
        {"conversation": {"id": 10**40, "meta": {"sender": {"identifier": "9" * 300}}}},
        {"content_attributes": "not a dict"},
        {"sender": "not a dict"},
    ],
)
def test_an_event_of_the_wrong_shape_is_ignored_or_carried_never_a_500(
    api_client, integration, chatwoot, conversation_id, change
):
    payload = {**chatwoot.agent_message(conversation_id, "Formato estranho"), **change}
    response = _post(api_client, integration, json.dumps(payload).encode())
    assert response.status_code == 200, response.content
    assert response.json()["result"] in {"queued", "ignored"}


@pytest.mark.parametrize(
    "payload",
    [
        {"event": "message_updated", "id": 10**30, "content_attributes": {"deleted": True}},
        {"event": "message_updated", "id": 1, "content_attributes": ["deleted"]},
        {"event": "conversation_typing_on", "user": "agent", "conversation": 5},
        {"event": "conversation_typing_on", "user": {"type": "user"}, "conversation": {"id": "x" * 500}},
        {"event": ["message_created"]},
    ],
)
def test_other_events_of_the_wrong_shape_are_ignored(api_client, integration, payload):
    response = _post(api_client, integration, json.dumps(payload).encode())
    assert response.status_code == 200, response.content


def test_a_body_that_is_not_an_object_or_too_deep_is_not_a_500(api_client, integration):
    assert _post(api_client, integration, b"[1, 2, 3]").status_code == 200
    assert _post(api_client, integration, b'"text"').status_code == 200
    assert _post(api_client, integration, b"[" * 100_000).status_code == 400
    assert _post(api_client, integration, b"\xff\xfe not json").status_code == 400
    deep = {"event": "message_created", "content_attributes": {}}
    inner = deep["content_attributes"]
    for _ in range(200):
        inner["x"] = {}
        inner = inner["x"]
    assert _post(api_client, integration, json.dumps(deep).encode()).status_code == 200
    assert not MirrorJob.objects.filter(direction=MirrorJob.Direction.TO_CUSTOMER).exists()
