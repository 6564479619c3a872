"""`poll_vote` and `message_edited` reach registered webhooks (catalogue, aliases) and instance
webhooks (Ponte's documented `messages[]` extension of the `meta` envelope), driven through the API."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from messaging.models import Session
from tests.webhooks.instance_schema import validate_envelope
from tests.webhooks.instance_support import configure
from webhooks.catalogue import EVENTS, canonical_event
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988880002@s.whatsapp.net"


@pytest.fixture
def client(admin_key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=admin_key)
    return client


@pytest.fixture
def session(client) -> Session:
    session_id = client.post("/api/sessions", {"name": "polls"}, format="json").json()["id"]
    client.post(f"/api/sessions/{session_id}/connect")
    client.post(f"/api/sandbox/sessions/{session_id}/scan", {"phone": "5511999990001"}, format="json")
    return Session.objects.get(pk=session_id)


def _poll_and_vote(client, session) -> str:
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "name": "Lunch?", "options": ["Yes", "No"]}
    poll_id = client.post("/api/messages/poll", body, format="json").json()["messageId"]
    vote = {"event": "poll_vote", "from": CUSTOMER, "pollMessageId": poll_id, "options": ["Yes"]}
    assert client.post(f"/api/sandbox/sessions/{session.pk}/inbound", vote, format="json").status_code == 201
    return poll_id


def _send_and_edit(client, session) -> str:
    body = {"sessionId": str(session.pk), "to": CUSTOMER, "text": "Helo"}
    message_id = client.post("/api/messages/send", body, format="json").json()["messageId"]
    edit = {"sessionId": str(session.pk), "to": CUSTOMER, "messageId": message_id, "text": "Hello"}
    assert client.post("/api/messages/edit", edit, format="json").status_code == 200
    return message_id


def test_the_catalogue_lists_the_new_events_and_their_dotted_aliases():
    assert "poll_vote" in EVENTS and "message_edited" in EVENTS
    assert canonical_event("poll.vote") == "poll_vote"
    assert canonical_event("message.edited") == "message_edited"


def test_a_registered_webhook_gets_poll_votes_and_edits(client, session):
    body = {
        "sessionId": str(session.pk),
        "url": "https://93.184.215.14/hook",
        "events": ["poll_vote", "message.edited"],
    }
    created = client.post("/gateway/webhooks", body, format="json")
    assert created.status_code == 200, created.json()
    assert created.json()["events"] == ["poll_vote", "message_edited"]
    poll_id = _poll_and_vote(client, session)
    message_id = _send_and_edit(client, session)
    deliveries = Delivery.objects.filter(webhook_id=created.json()["id"]).select_related("event")
    assert sorted(d.event.name for d in deliveries) == ["message_edited", "poll_vote"]
    vote = next(d.event for d in deliveries if d.event.name == "poll_vote")
    assert vote.data["pollMessageId"] == poll_id and vote.data["selectedOptions"] == ["Yes"]
    edit = next(d.event for d in deliveries if d.event.name == "message_edited")
    assert edit.data["messageId"] == message_id and edit.data["fromMe"] is True


def _instance_change(session, name: str) -> dict:
    delivery = (
        Delivery.objects.filter(session=session, kind=Delivery.Kind.INSTANCE, event__name=name)
        .order_by("-id")
        .first()
    )
    assert delivery is not None, name
    validate_envelope(delivery.payload)
    return delivery.payload["entry"][0]["changes"][0]


def test_instance_webhooks_get_the_documented_meta_extension(client, session):
    configure(session)
    poll_id = _poll_and_vote(client, session)
    message_id = _send_and_edit(client, session)
    vote = _instance_change(session, "poll_vote")
    assert vote["field"] == "messages"
    entry = vote["value"]["messages"][0]
    assert entry["type"] == "poll_vote" and entry["from"] == "5511988880002"
    assert entry["context"] == {"id": poll_id}
    assert entry["poll_vote"] == {"poll_message_id": poll_id, "selected_options": ["Yes"]}
    edit = _instance_change(session, "message_edited")["value"]["messages"][0]
    assert edit["type"] == "edit" and edit["to"] == "5511988880002"
    assert edit["edit"]["message_id"] == message_id and edit["edit"]["body"] == "Hello"


def test_own_edits_go_to_the_from_me_url_of_the_instance(client, session):
    configure(session, webhook_message_from_me="https://93.184.215.14/mine")
    _send_and_edit(client, session)
    delivery = Delivery.objects.get(
        session=session, kind=Delivery.Kind.INSTANCE, event__name="message_edited"
    )
    assert delivery.target_url == "https://93.184.215.14/mine"
