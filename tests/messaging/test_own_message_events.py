"""Messages the session sends through the API are echoed by the engine as `fromMe` `message` events."""

from __future__ import annotations

import pytest

from messaging.models import Message
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID, SEED_MESSAGE_FIELDS
from webhooks.meta import meta_envelope
from webhooks.models import Event
from webhooks.payloads import typed_event

pytestmark = pytest.mark.django_db


@pytest.fixture
def send(admin_client, session):
    def post(path: str, body: dict):
        response = admin_client.post(
            f"/api/messages/{path}", {"sessionId": str(session.pk), **body}, format="json"
        )
        assert response.status_code == 200, response.json()
        return response.json()

    return post


def _own_events() -> list[Event]:
    return [e for e in Event.objects.filter(name="message").order_by("sequence") if e.data.get("fromMe")]


def test_a_sent_text_emits_one_from_me_message_with_the_inbound_fields(send, session):
    sent = send("send", {"to": CUSTOMER, "text": "Olá"})
    (event,) = _own_events()
    assert set(event.data) >= set(SEED_MESSAGE_FIELDS)
    assert event.chat == CUSTOMER_JID
    assert event.data["id"] == sent["messageId"]
    assert event.data["fromMe"] is True
    assert (event.data["type"], event.data["text"]) == ("text", "Olá")
    assert event.data["chat"] == event.data["chatId"] == event.data["remoteJid"] == CUSTOMER_JID
    assert event.data["sender"] == session.jid
    # One history row, completed by the send service.
    (message,) = Message.objects.all()
    assert message.message_id == sent["messageId"] and message.direction == "outbound"
    assert message.content == {"text": "Olá"} and message.status == "sent"


def test_a_reply_carries_the_quoted_message(send):
    first = send("send", {"to": CUSTOMER, "text": "first"})
    send("send", {"to": CUSTOMER, "text": "second", "quoted": {"messageId": first["messageId"]}})
    assert _own_events()[1].data["quoted"]["messageId"] == first["messageId"]


def test_vcard_vcards_location_and_buttons_emit_their_own_types(send):
    card = {"displayName": "Ana", "phoneNumber": "5511912345678"}
    send("vcard", {"to": CUSTOMER, **card})
    send(
        "vcards",
        {"to": CUSTOMER, "displayName": "2 contacts", "contacts": [card, {**card, "displayName": "Bia"}]},
    )
    send("location", {"to": CUSTOMER, "latitude": -23.5, "longitude": -46.6, "name": "SP"})
    send("buttons", {"to": CUSTOMER, "text": "Pick", "buttons": [{"buttonId": "a", "buttonText": "A"}]})
    vcard, vcards, location, buttons = (e.data for e in _own_events())
    assert vcard["type"] == "contacts" and vcard["contacts"] == [card]
    assert vcards["type"] == "contacts" and [c["displayName"] for c in vcards["contacts"]] == ["Ana", "Bia"]
    assert vcards["displayName"] == "2 contacts"
    assert location["type"] == "location"
    assert location["location"] == {"latitude": -23.5, "longitude": -46.6, "name": "SP", "address": ""}
    assert buttons["type"] == "buttons" and buttons["text"] == "Pick"
    assert buttons["buttons"] == [{"buttonId": "a", "buttonText": "A"}]
    assert Message.objects.count() == 4  # no echo duplicated a row


def test_a_reaction_and_its_removal_emit_reaction_messages(admin_client, send, session):
    inbound = admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/inbound",
        {"event": "message", "from": CUSTOMER, "text": "oi"},
        format="json",
    ).json()["data"]
    body = {"to": CUSTOMER, "messageId": inbound["id"]}
    send("reaction", {**body, "reaction": "👍"})
    send("reaction", {**body, "reaction": ""})
    added, removed = (e.data for e in _own_events())
    assert added["type"] == removed["type"] == "reaction"
    assert added["reaction"] == {"messageId": inbound["id"], "emoji": "👍"}
    assert removed["reaction"] == {"messageId": inbound["id"], "emoji": ""}
    assert added["id"] != inbound["id"] and added["sender"] == session.jid
    assert Message.objects.get().reactions == {}  # reactions are not history rows


def test_a_deletion_emits_a_revoked_message_and_adds_no_history_row(send, session):
    sent = send("send", {"to": CUSTOMER, "text": "oops"})
    send("delete", {"remoteJid": CUSTOMER, "messageId": sent["messageId"], "fromMe": True})
    _, revoked = (e.data for e in _own_events())
    assert revoked["type"] == "revoked" and revoked["fromMe"] is True
    assert revoked["revokedMessageId"] == sent["messageId"]
    assert revoked["revokedSender"] == session.jid and revoked["revokedFromMe"] is True
    (message,) = Message.objects.all()
    assert message.status == "deleted" and message.deleted_at is not None


def test_a_refused_send_emits_nothing(admin_client, session):
    response = admin_client.post(
        "/api/messages/send",
        {"sessionId": str(session.pk), "to": "120363000000000001@g.us", "text": "x"},
        format="json",
    )
    assert response.status_code >= 400
    assert _own_events() == []


def test_own_buttons_and_revoked_messages_render_in_the_meta_envelope_as_unsupported(send, session):
    sent = send(
        "buttons", {"to": CUSTOMER, "text": "Pick", "buttons": [{"buttonId": "a", "buttonText": "A"}]}
    )
    send("delete", {"remoteJid": CUSTOMER, "messageId": sent["messageId"], "fromMe": True})
    for event in _own_events():
        body = meta_envelope(session, event, typed_event(event))
        (message,) = body["entry"][0]["changes"][0]["value"]["messages"]
        assert message["id"] == event.data["id"] and message["type"] == "unsupported"
