"""Forwarding on the sandbox: every kind of message of the history copied, marked forwarded."""

from __future__ import annotations

import base64

import pytest

from messaging.models import Message, Poll
from tests.messaging.audio_inputs import tone
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from webhooks.models import Event

pytestmark = pytest.mark.django_db

OTHER = "5511977770003"
OTHER_JID = f"{OTHER}@s.whatsapp.net"
IMAGE = b"\xff\xd8\xff\xe0" + b"jpeg bytes" * 50


@pytest.fixture(autouse=True)
def media_dir(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "messaging_media": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "media")},
        },
    }


@pytest.fixture
def api(admin_client, session):
    def post(path: str, **body):
        return admin_client.post(
            f"/api/messages/{path}", {"sessionId": str(session.pk), **body}, format="json"
        )

    return post


def inbound(admin_client, session, **body):
    response = admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/inbound", {"event": "message", **body}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def forward(api, message_id: str, chat: str = CUSTOMER_JID):
    response = api("forward", to=OTHER, chat=chat, messageId=message_id)
    assert response.status_code == 200, response.json()
    return response.json()


def last_event() -> dict:
    return Event.objects.filter(name="message").order_by("created_at").last().data


def test_a_received_text_is_forwarded_with_the_send_reply_and_marked_in_history_and_event(
    admin_client, session, api
):
    got = inbound(admin_client, session, **{"from": CUSTOMER, "text": "Promoção amanhã"})
    sent = forward(api, got["id"])
    assert sent["to"] == OTHER_JID and sent["messageId"] != got["id"]
    copy = Message.objects.get(message_id=sent["messageId"])
    assert (copy.type, copy.content["text"], copy.content["forwarded"]) == ("text", "Promoção amanhã", True)
    event = last_event()
    assert event["forwarded"] is True and event["fromMe"] is True and event["chat"] == OTHER_JID
    history = admin_client.get(f"/api/messages?sessionId={session.pk}&chat={OTHER_JID}").json()["data"]
    assert history[0]["forwarded"] is True


def test_media_is_forwarded_from_its_stored_bytes(admin_client, session, api):
    media = {"base64": base64.b64encode(IMAGE).decode(), "mimeType": "image/jpeg"}
    got = inbound(
        admin_client, session, **{"from": CUSTOMER, "type": "image", "media": media, "caption": "Foto"}
    )
    sent = forward(api, got["id"])
    copy = Message.objects.get(message_id=sent["messageId"])
    assert copy.type == "image" and copy.content["caption"] == "Foto" and copy.content["forwarded"]
    assert copy.content["sha256"] == got["sha256"] and copy.content["mediaUrl"]
    event = last_event()
    assert event["type"] == "image" and event["sha256"] == got["sha256"] and event["size"] == len(IMAGE)


def test_location_contacts_and_a_sent_voice_note_are_forwarded_as_what_they_are(admin_client, session, api):
    place = inbound(
        admin_client,
        session,
        **{"from": CUSTOMER, "type": "location", "latitude": -23.5, "longitude": -46.6, "name": "Loja"},
    )
    forward(api, place["id"])
    assert last_event()["location"]["name"] == "Loja" and last_event()["forwarded"] is True
    card = {"displayName": "Ana", "phoneNumber": "5511912345678"}
    cards = inbound(admin_client, session, **{"from": CUSTOMER, "type": "contacts", "contacts": [card]})
    forward(api, cards["id"])
    (forwarded_card,) = last_event()["contacts"]
    assert forwarded_card["displayName"] == "Ana" and "5511912345678" in forwarded_card["vcard"]
    # A real note: voice notes are decoded and converted to OGG/Opus (tests/messaging/test_voice_notes.py).
    voice = api(
        "media", to=CUSTOMER, type="voice", base64=base64.b64encode(tone("ogg", seconds=0.5)).decode()
    )
    assert voice.status_code == 200, voice.json()
    forward(api, voice.json()["messageId"])
    assert last_event()["type"] == "audio" and last_event()["voice"] is True


def test_a_poll_is_forwarded_as_a_new_poll_whose_votes_count_apart(api):
    poll = api("poll", to=CUSTOMER, name="Sabor?", options=["Uva", "Maçã"]).json()
    sent = forward(api, poll["messageId"])
    copy = Poll.objects.get(message_id=sent["messageId"])
    assert (copy.name, copy.options, copy.chat) == ("Sabor?", ["Uva", "Maçã"], OTHER_JID)
    assert last_event()["poll"]["options"] == ["Uva", "Maçã"] and last_event()["forwarded"] is True


def test_an_unknown_message_is_404_message_not_found(api):
    response = api("forward", to=OTHER, chat=CUSTOMER, messageId="3EB0NOPE")
    assert response.status_code == 404 and response.json()["error"] == "MESSAGE_NOT_FOUND"


def test_a_reaction_cannot_be_forwarded_and_nothing_is_sent(admin_client, session, api):
    got = inbound(admin_client, session, **{"from": CUSTOMER, "text": "oi"})
    react = inbound(
        admin_client,
        session,
        **{"from": CUSTOMER, "type": "reaction", "reactionTo": got["id"], "emoji": "👍"},
    )
    response = api("forward", to=OTHER, chat=CUSTOMER, messageId=react["id"])
    assert response.status_code in (400, 404)
    assert not Message.objects.filter(chat=OTHER_JID).exists()


def test_inbound_messages_say_when_they_were_forwarded(admin_client, session):
    got = inbound(admin_client, session, **{"from": CUSTOMER, "text": "fwd", "forwarded": True})
    assert got["forwarded"] is True
    assert Message.objects.get(message_id=got["id"]).content["forwarded"] is True
