# ruff: noqa: F811 - the conformance fixtures are imported and used as arguments
"""The conformance suite's media, chat and connection operations (issue 15), for every engine.

Same engines and fixtures as tests/messaging/test_engine_conformance.py (the in-process sandbox, and
on PostgreSQL the sandbox hosted by real `run_engine` processes): media bytes stored by the engine
process are served back identical by the web side, and the new operations travel over the bus.
"""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import urlsplit

import pytest

from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from tests.messaging.test_engine_conformance import (  # noqa: F401 - fixtures
    engine,
    new_session,
    paired,
    post,
    registered_events,
)
from webhooks.models import Event

pytestmark = pytest.mark.django_db(transaction=True)

IMAGE = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4


def _served(client, url: str) -> bytes:
    response = client.get(urlsplit(url).path)
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def test_media_is_sent_and_inbound_media_served_back_identical(paired, admin_client, client):
    encoded = base64.b64encode(IMAGE).decode()
    sent = post(
        admin_client, "messages/media", paired, to=CUSTOMER, type="image", base64=encoded, caption="c"
    )
    assert sent.status_code == 200, sent.json()
    echo = Event.objects.filter(session=paired, name="message").latest("sequence").data
    assert echo["fromMe"] is True and echo["id"] == sent.json()["messageId"]
    assert _served(client, echo["mediaUrl"]) == IMAGE
    media = {"base64": encoded, "mimeType": "image/jpeg"}
    body = {"event": "message", "from": CUSTOMER, "type": "image", "media": media}
    inbound = admin_client.post(f"/api/sandbox/sessions/{paired.pk}/inbound", body, format="json")
    assert inbound.status_code == 201, inbound.json()
    data = inbound.json()["data"]
    assert data["sha256"] == hashlib.sha256(IMAGE).hexdigest() and data["size"] == len(IMAGE)
    assert hashlib.sha256(_served(client, data["mediaUrl"])).hexdigest() == data["sha256"]


def test_read_presence_and_restart_travel_to_the_engine(paired, admin_client):
    body = {"event": "message", "from": CUSTOMER, "text": "oi"}
    message_id = admin_client.post(f"/api/sandbox/sessions/{paired.pk}/inbound", body, format="json").json()[
        "data"
    ]["id"]
    read = post(admin_client, "chats/read", paired, chatId=CUSTOMER, messageIds=[message_id])
    assert read.status_code == 200 and read.json()["messageIds"] == [message_id]
    presence = post(admin_client, "chats/presence", paired, chatId=CUSTOMER, presence="composing")
    assert presence.status_code == 200
    group = post(admin_client, "chats/presence", paired, chatId="120363000000000009@g.us", presence="paused")
    assert group.status_code == 404  # EngineNotFound from the engine, whichever process runs it
    dropped = {"event": "disconnected", "reason": "stream_error"}
    assert (
        admin_client.post(f"/api/sandbox/sessions/{paired.pk}/inbound", dropped, format="json").status_code
        == 201
    )
    assert admin_client.get(f"/api/sessions/{paired.pk}").json()["reason"] == "stream_error"
    restarted = admin_client.post(f"/api/sessions/{paired.pk}/restart")
    assert restarted.status_code == 200 and restarted.json()["status"] == "connected"
    assert registered_events(paired)[-2:] == ["disconnected", "connected"]
    assert read.json()["chatId"] == CUSTOMER_JID


def test_history_media_is_routed_to_the_history_webhook(paired, admin_client):
    from webhooks.models import Delivery, InstanceWebhookConfig

    InstanceWebhookConfig.objects.filter(session=paired).update(webhook_history="http://127.0.0.1:9/history")
    media = {"base64": base64.b64encode(IMAGE).decode(), "mimeType": "image/jpeg"}
    body = {"event": "message", "from": CUSTOMER, "type": "image", "media": media, "isHistory": True}
    data = admin_client.post(f"/api/sandbox/sessions/{paired.pk}/inbound", body, format="json").json()["data"]
    assert data["isHistory"] is True and data["mediaUrl"]
    targets = Delivery.objects.filter(session=paired, kind=Delivery.Kind.INSTANCE).values_list(
        "target_url", flat=True
    )
    assert "http://127.0.0.1:9/history" in set(targets)
