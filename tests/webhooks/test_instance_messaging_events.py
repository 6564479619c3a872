"""Events as the messaging app reports them (`engine_event_receive`, the engines' `on_event`, with the
data shapes of docs/messaging.md) come out as valid `meta` envelopes."""

from __future__ import annotations

import pytest

from messaging.engines.events import event_from_data
from messaging.services.events import engine_event_receive
from tests.webhooks.instance_schema import validate_envelope
from tests.webhooks.instance_support import CONTACT_JID, GROUP_JID, OWN_JID, configure, instance_session
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(account):
    session = instance_session(account)
    configure(session)
    return session


def _report(session, name: str, data: dict) -> dict:
    engine_event_receive(str(session.pk), event_from_data(name, data))
    delivery = Delivery.objects.filter(session=session, kind=Delivery.Kind.INSTANCE).order_by("-id").first()
    assert delivery is not None and delivery.event.name == name
    validate_envelope(delivery.payload)
    return delivery.payload["entry"][0]["changes"][0]


def _message(**extra) -> dict:
    return {
        "id": "3EB0MSG0000000000001",
        "chat": CONTACT_JID,
        "chatId": CONTACT_JID,
        "remoteJid": CONTACT_JID,
        "sender": CONTACT_JID,
        "pushName": "Maria",
        "text": "",
        "timestamp": 1763800000,
        "fromMe": False,
        "type": "text",
        "mediaUrl": None,
        **extra,
    }


def test_messaging_shaped_messages_render_every_type(session):
    text = _report(session, "message", _message(text="oi", quoted={"messageId": "3EB0PREV"}))
    assert text["value"]["messages"][0]["text"] == {"body": "oi"}
    assert text["value"]["messages"][0]["context"] == {"id": "3EB0PREV"}

    image = _report(
        session,
        "message",
        _message(
            id="M2", type="image", mediaUrl="https://m.example/i.jpg", mimeType="image/png", caption="c"
        ),
    )
    assert image["value"]["messages"][0]["image"]["mime_type"] == "image/png"

    location = _report(
        session,
        "message",
        _message(
            id="M3",
            type="location",
            location={"latitude": -22.9, "longitude": -43.2, "name": "Cristo", "address": "Rio"},
        ),
    )
    assert location["value"]["messages"][0]["location"] == {
        "latitude": -22.9,
        "longitude": -43.2,
        "name": "Cristo",
        "address": "Rio",
    }

    contacts = _report(
        session,
        "message",
        _message(
            id="M4", type="contacts", contacts=[{"displayName": "Ana", "phoneNumber": "+55 11 97777-0000"}]
        ),
    )
    (card,) = contacts["value"]["messages"][0]["contacts"]
    assert card["name"] == {"formatted_name": "Ana"}
    assert "TEL;type=CELL;type=VOICE;waid=5511977770000:+5511977770000\r\n" in card["vcard"]

    removal = _report(
        session, "message", _message(id="M5", type="reaction", reaction={"messageId": "M2", "emoji": ""})
    )
    assert removal["value"]["messages"][0]["reaction"] == {"message_id": "M2"}


def test_messaging_shaped_other_events_render(session):
    ack = _report(session, "message_ack", {"messageId": "3EB0SENT", "status": "read", "chat": CONTACT_JID})
    assert ack["value"]["statuses"][0]["status"] == "read"
    assert ack["value"]["statuses"][0]["id"] == "3EB0SENT"

    presence = _report(
        session, "presence", {"from": CONTACT_JID, "presence": "recording", "timestamp": 1763800000}
    )
    assert presence["value"]["presences"][0]["from"] == "5511988887777"
    assert presence["value"]["presences"][0]["status"] == "recording"

    call = _report(session, "call", {"from": CONTACT_JID, "callId": "C9", "video": True, "status": "offer"})
    assert call["value"]["calls"][0]["media"] == "video"

    join = _report(
        session,
        "group_join",
        {
            "group": GROUP_JID,
            "subject": "Equipe",
            "participants": [CONTACT_JID],
            "by": OWN_JID,
            "members": [{"jid": OWN_JID, "admin": True}, {"jid": CONTACT_JID, "admin": False}],
        },
    )
    assert join["value"]["groups"][0]["added_participants"] == [
        {"input": CONTACT_JID, "wa_id": "5511988887777"}
    ]

    qr = _report(session, "qr", {"qrCode": "2@abc,def", "expiresAt": "2026-11-22T05:00:00+00:00"})
    assert qr["value"]["qrcode"]["code"] == "2@abc,def"

    connected = _report(session, "connected", {"jid": OWN_JID, "phone": "5511900000001", "pushName": "Loja"})
    assert connected["value"]["connection"]["phone_number"] == "5511900000001"
