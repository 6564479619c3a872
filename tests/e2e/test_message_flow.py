"""A message's whole way: the API, the sandbox engine, the outbox, a real Celery worker, real receivers.

An inbound text (injected through the sandbox) and a text the session sends through the API both reach
the registered `message` webhook (signed; `fromMe` false / true) and the instance webhooks in the meta
envelope: the inbound one on `webhookMessage`, the own one on `webhookMessageFromMe`.
"""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
from rest_framework.test import APIClient

from messaging.models import Message
from tests.webhooks.support import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

PHONE = "5511999990001"
CUSTOMER = "5511988880002"
CUSTOMER_JID = f"{CUSTOMER}@s.whatsapp.net"
SECRET = "e2e-secret"


def _json(request) -> dict:
    return json.loads(request.body)


def test_inbound_and_sent_messages_reach_registered_and_instance_webhooks(
    admin_key, start_worker, make_receiver, allow_loopback
):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=admin_key)
    registered, instance = make_receiver(), make_receiver()
    incoming_url = instance.url.replace("/hook", "/incoming")
    own_url = instance.url.replace("/hook", "/own")

    created = client.post("/api/sessions", {"name": "e2e"}, format="json")
    assert created.status_code == 201, created.json()
    session_id, instance_key = created.json()["id"], created.json()["instanceKey"]
    assert client.post(f"/api/sessions/{session_id}/connect").status_code == 200
    scanned = client.post(f"/api/sandbox/sessions/{session_id}/scan", {"phone": PHONE}, format="json")
    assert scanned.status_code == 200, scanned.json()

    hook = client.post(
        "/gateway/webhooks",
        {"sessionId": session_id, "url": registered.url, "secret": SECRET, "events": ["message"]},
        format="json",
    )
    assert hook.status_code == 200, hook.json()
    configured = APIClient().put(
        f"/instances/{instance_key}/instance",
        {
            "allowWebhook": True,
            "webhookFormat": "meta",
            "webhookMessage": incoming_url,
            "webhookMessageFromMe": own_url,
        },
        format="json",
    )
    assert configured.status_code == 200, configured.json()

    start_worker()
    inbound = client.post(
        f"/api/sandbox/sessions/{session_id}/inbound",
        {"event": "message", "from": CUSTOMER, "text": "Olá", "pushName": "Cliente"},
        format="json",
    )
    assert inbound.status_code == 201, inbound.json()
    inbound_id = inbound.json()["data"]["id"]
    sent = client.post(
        "/api/messages/send", {"sessionId": session_id, "to": CUSTOMER, "text": "Tudo bem?"}, format="json"
    )
    assert sent.status_code == 200, sent.json()
    sent_id = sent.json()["messageId"]

    wait_for(lambda: len(registered.received) >= 2, what="both messages at the registered webhook")
    wait_for(lambda: len(instance.received) >= 2, what="both messages at the instance webhooks")

    # Registered webhook: one signed delivery per message, the own one with fromMe true.
    by_id = {}
    for request in registered.received:
        expected = hmac.new(SECRET.encode(), request.body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(request.headers["x-webhook-signature"], expected)
        body = _json(request)
        assert body["event"] == "message" and body["session_id"] == session_id
        by_id[body["data"]["id"]] = body["data"]
    assert set(by_id) == {inbound_id, sent_id}
    assert by_id[inbound_id]["fromMe"] is False and by_id[inbound_id]["text"] == "Olá"
    assert by_id[sent_id]["fromMe"] is True and by_id[sent_id]["text"] == "Tudo bem?"
    assert by_id[sent_id]["chat"] == by_id[sent_id]["remoteJid"] == CUSTOMER_JID
    assert by_id[sent_id]["sender"] == f"{PHONE}@s.whatsapp.net"

    # Instance webhooks: the inbound message on webhookMessage, the own one on webhookMessageFromMe.
    by_path = {request.path: _json(request) for request in instance.received}
    assert set(by_path) == {"/incoming", "/own"}
    for path, message_id, text in (("/incoming", inbound_id, "Olá"), ("/own", sent_id, "Tudo bem?")):
        envelope = by_path[path]
        assert envelope["object"] == "ponte"
        (entry,) = envelope["entry"]
        (change,) = entry["changes"]
        assert change["field"] == "messages"
        (message,) = change["value"]["messages"]
        assert message["id"] == message_id
        assert message["type"] == "text" and message["text"]["body"] == text
    incoming = by_path["/incoming"]["entry"][0]["changes"][0]["value"]["messages"][0]
    own = by_path["/own"]["entry"][0]["changes"][0]["value"]["messages"][0]
    assert incoming["from"] == CUSTOMER
    assert own["from"] == PHONE and own["to"] == CUSTOMER

    # The echo of the send did not duplicate the history: one row per message, the sent one outbound.
    assert Message.objects.filter(session_id=session_id).count() == 2
    mine = Message.objects.get(message_id=sent_id)
    assert mine.from_me and mine.direction == "outbound" and mine.content == {"text": "Tudo bem?"}
