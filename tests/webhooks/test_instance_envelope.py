"""The `meta` envelope of instance webhooks, every message type of seed 002 (b) and every other field,
validated against the JSON Schema written from the seed (tests/webhooks/instance_schema.py)."""

from __future__ import annotations

import jsonschema
import pytest

from tests.webhooks.instance_schema import validate_envelope, validate_plain
from tests.webhooks.instance_support import (
    CONTACT_JID,
    GROUP_JID,
    body_of,
    configure,
    instance_session,
    message,
)
from webhooks.meta import decode_entry_id
from webhooks.models import InstanceWebhookConfig

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(account):
    session = instance_session(account)
    configure(session)
    return session


def _only_message(body: dict) -> dict:
    (entry,) = body["entry"]
    (change,) = entry["changes"]
    assert change["field"] == "messages"
    (msg,) = change["value"]["messages"]
    return msg


MEDIA = {"mediaUrl": "https://media.example/abc", "mediaId": "MEDIA1", "sha256": "q1w2e3"}

MESSAGE_CASES = {
    "text": (message(type="text", text="Olá, tudo bem?"), {"body": "Olá, tudo bem?"}),
    "image": (
        message(type="image", caption="a photo", mimeType="image/jpeg", **MEDIA),
        {
            "id": "MEDIA1",
            "url": MEDIA["mediaUrl"],
            "mime_type": "image/jpeg",
            "sha256": "q1w2e3",
            "caption": "a photo",
        },
    ),
    "image without caption": (
        message(type="image", mimeType="image/png", **MEDIA),
        {"id": "MEDIA1", "url": MEDIA["mediaUrl"], "mime_type": "image/png", "sha256": "q1w2e3"},
    ),
    "view-once image": (
        message(type="image", viewOnce=True, mimeType="image/jpeg", **MEDIA),
        {"id": "MEDIA1", "url": MEDIA["mediaUrl"], "mime_type": "image/jpeg", "sha256": "q1w2e3"},
    ),
    "audio": (
        message(type="audio", mimeType="audio/mpeg", **MEDIA),
        {
            "id": "MEDIA1",
            "url": MEDIA["mediaUrl"],
            "mime_type": "audio/mpeg",
            "sha256": "q1w2e3",
            "voice": False,
        },
    ),
    "voice note": (
        message(type="audio", voice=True, **MEDIA),
        {
            "id": "MEDIA1",
            "url": MEDIA["mediaUrl"],
            "mime_type": "audio/ogg; codecs=opus",
            "sha256": "q1w2e3",
            "voice": True,
        },
    ),
    "video": (
        message(type="video", caption="clip", mimeType="video/mp4", **MEDIA),
        {
            "id": "MEDIA1",
            "url": MEDIA["mediaUrl"],
            "mime_type": "video/mp4",
            "sha256": "q1w2e3",
            "caption": "clip",
        },
    ),
    "document": (
        message(type="document", fileName="boleto.pdf", caption="", mimeType="application/pdf", **MEDIA),
        {
            "id": "MEDIA1",
            "url": MEDIA["mediaUrl"],
            "mime_type": "application/pdf",
            "sha256": "q1w2e3",
            "filename": "boleto.pdf",
            "caption": "",
        },
    ),
    "sticker": (
        message(type="sticker", **MEDIA),
        {
            "id": "MEDIA1",
            "url": MEDIA["mediaUrl"],
            "mime_type": "image/webp",
            "sha256": "q1w2e3",
            "animated": False,
        },
    ),
    "animated sticker": (
        message(type="sticker", animated=True, **MEDIA),
        {
            "id": "MEDIA1",
            "url": MEDIA["mediaUrl"],
            "mime_type": "image/webp",
            "sha256": "q1w2e3",
            "animated": True,
        },
    ),
    "location": (
        message(
            type="location",
            location={"latitude": -23.5613, "longitude": -46.6565, "name": "MASP", "address": "Av. Paulista"},
        ),
        {"latitude": -23.5613, "longitude": -46.6565, "name": "MASP", "address": "Av. Paulista"},
    ),
    "contacts": (
        message(
            type="contacts",
            contacts=[{"vcard": "BEGIN:VCARD\nVERSION:3.0\nFN:João Lima\nTEL:+5511977776666\nEND:VCARD"}],
        ),
        [
            {
                "name": {"formatted_name": "João Lima"},
                "vcard": "BEGIN:VCARD\nVERSION:3.0\nFN:João Lima\nTEL:+5511977776666\nEND:VCARD",
            }
        ],
    ),
    "reaction": (
        message(type="reaction", reaction={"messageId": "3EB0TARGET", "emoji": "👍"}),
        {"message_id": "3EB0TARGET", "emoji": "👍"},
    ),
    "reaction removal": (
        message(type="reaction", reaction={"messageId": "3EB0TARGET", "emoji": ""}),
        {"message_id": "3EB0TARGET"},
    ),
}


@pytest.mark.parametrize("case", list(MESSAGE_CASES))
def test_every_message_type_renders_the_seed_shape_and_passes_the_schema(session, case):
    data, expected = MESSAGE_CASES[case]
    body = body_of(session, "message", data)
    validate_envelope(body)
    msg = _only_message(body)
    kind = msg["type"]
    assert msg[kind] == expected
    assert msg["from"] == "5511988887777"
    assert msg["id"] == "3EB0C767D26A1D6F0001"
    assert msg["timestamp"] == "1763800000"
    assert msg["chat_type"] == "individual"


def test_the_envelope_top_level_and_metadata_follow_the_seed(session):
    body = body_of(session, "message", message(text="hi"))
    validate_envelope(body)
    assert body["object"] == "ponte"
    assert body["provider"] == "whatsapp"
    assert body["official"] is False
    assert body["instance"] == str(session.id)
    (entry,) = body["entry"]
    assert entry["id"].startswith("ponte_")
    assert decode_entry_id(entry["id"]) == session.id
    value = entry["changes"][0]["value"]
    assert value["messaging_product"] == "whatsapp"
    assert value["metadata"] == {"display_phone_number": "5511900000001", "phone_number_id": str(session.id)}
    assert value["contacts"] == [{"profile": {"name": "Maria Souza"}, "wa_id": "5511988887777"}]


def test_button_and_list_replies_render_as_interactive_messages(session):
    body = body_of(
        session,
        "message",
        message(
            type="button_reply", selectedId="opt-yes", selectedTitle="Yes", quoted={"messageId": "3EB0ASKED"}
        ),
    )
    validate_envelope(body)
    msg = _only_message(body)
    assert msg["type"] == "interactive"
    assert msg["interactive"] == {"type": "button_reply", "button_reply": {"id": "opt-yes", "title": "Yes"}}
    assert msg["context"] == {"id": "3EB0ASKED"}

    body = body_of(
        session,
        "message",
        message(
            type="list_reply", selectedId="row-2", selectedTitle="Tuesday", selectedDescription="9 to 12h"
        ),
    )
    validate_envelope(body)
    assert _only_message(body)["interactive"]["list_reply"] == {
        "id": "row-2",
        "title": "Tuesday",
        "description": "9 to 12h",
    }

    body = body_of(session, "message", message(type="button", selectedId="STOP", selectedTitle="Stop"))
    validate_envelope(body)
    assert _only_message(body)["button"] == {"payload": "STOP", "text": "Stop"}


def test_an_unknown_type_is_sent_as_unsupported(session):
    body = body_of(session, "message", message(type="poll_creation"))
    validate_envelope(body)
    msg = _only_message(body)
    assert msg["type"] == "unsupported"
    assert msg["errors"][0]["code"] == 131051


def test_group_messages_carry_the_group_and_a_lid_sender_stays_an_anonymous_id(session):
    body = body_of(
        session,
        "message",
        message(chat=GROUP_JID, sender="190000111222333@lid", text="hello group"),
    )
    validate_envelope(body)
    msg = _only_message(body)
    assert msg["chat_type"] == "group"
    assert msg["group_id"] == GROUP_JID
    assert msg["from_user_id"] == "190000111222333@lid"
    contact = body["entry"][0]["changes"][0]["value"]["contacts"][0]
    assert contact["user_id"] == "190000111222333@lid"


def test_own_messages_come_from_the_instance_number_to_the_chat(session):
    configure(session, webhook_message_from_me="http://127.0.0.1:9/mine")
    body = body_of(session, "message", message(fromMe=True, sender="", text="sent from the phone"))
    validate_envelope(body)
    msg = _only_message(body)
    assert msg["from"] == "5511900000001"
    assert msg["to"] == "5511988887777"


def test_the_social_messenger_channel_adds_sticker_id_reaction_action_and_the_ordering_block(account):
    session = instance_session(account, provider="messenger", official=True, name="page")
    configure(session)
    body = body_of(session, "message", message(type="sticker", stickerId="369239263222822", **MEDIA))
    validate_envelope(body)
    assert body["provider"] == "messenger"
    assert body["official"] is True
    value = body["entry"][0]["changes"][0]["value"]
    assert value["messaging_product"] == "messenger"
    assert "fb_id" in value["contacts"][0]
    assert value["messages"][0]["sticker"]["sticker_id"] == "369239263222822"
    first = value["ponte"]
    assert set(first) == {"seq", "event_ms", "received_at_ms", "dispatched_at_ms"}
    assert first["dispatched_at_ms"] >= first["received_at_ms"]

    removal = body_of(
        session, "message", message(type="reaction", reaction={"messageId": "m_1", "emoji": ""})
    )
    validate_envelope(removal)
    reaction = removal["entry"][0]["changes"][0]["value"]["messages"][0]["reaction"]
    assert reaction == {"message_id": "m_1", "action": "unreact"}
    second = removal["entry"][0]["changes"][0]["value"]["ponte"]
    assert second["seq"] == first["seq"] + 1  # the same conversation, in order of receipt
    react = body_of(session, "message", message(type="reaction", reaction={"messageId": "m_1", "emoji": "❤️"}))
    assert react["entry"][0]["changes"][0]["value"]["messages"][0]["reaction"]["action"] == "react"


def test_whatsapp_bodies_have_no_messenger_extras(session):
    body = body_of(session, "message", message(type="sticker", stickerId="123", **MEDIA))
    value = body["entry"][0]["changes"][0]["value"]
    assert "ponte" not in value
    assert "sticker_id" not in value["messages"][0]["sticker"]


OTHER_CASES = {
    "message_ack": (
        {"messageId": "3EB0SENT", "chat": CONTACT_JID, "status": "read", "timestamp": 1763800100},
        "messages",
        "statuses",
        [
            {
                "id": "3EB0SENT",
                "status": "read",
                "timestamp": "1763800100",
                "recipient_id": "5511988887777",
                "recipient_type": "individual",
            }
        ],
    ),
    "presence": (
        {"from": CONTACT_JID, "presence": "composing", "timestamp": 1763800200},
        "presence",
        "presences",
        [
            {
                "from": "5511988887777",
                "chat_type": "individual",
                "status": "composing",
                "timestamp": "1763800200",
            }
        ],
    ),
    "connected": (
        {"jid": "5511900000001:3@s.whatsapp.net", "pushName": "Loja", "timestamp": 1763800300},
        "connection",
        "connection",
        {"status": "connected", "timestamp": "1763800300", "phone_number": "5511900000001", "name": "Loja"},
    ),
    "disconnected": (
        {"reason": "logged_out", "timestamp": 1763800400},
        "connection",
        "connection",
        {"status": "disconnected", "timestamp": "1763800400", "reason": "logged_out"},
    ),
    "qr": (
        {"qrCode": "2@AbCdEf==,XyZ==,123==", "serial": 1, "timestamp": 1763800500},
        "qrcode",
        "qrcode",
        {"code": "2@AbCdEf==,XyZ==,123==", "timestamp": "1763800500", "attempt": 1},
    ),
    "call": (
        {"callId": "CALL1", "from": CONTACT_JID, "status": "offer", "video": True, "timestamp": 1763800600},
        "call",
        "calls",
        [
            {
                "id": "CALL1",
                "from": "5511988887777",
                "to": "5511900000001",
                "event": "offer",
                "media": "video",
                "direction": "USER_INITIATED",
                "is_group": False,
                "timestamp": "1763800600",
            }
        ],
    ),
    "group_join": (
        {
            "group": GROUP_JID,
            "participants": [CONTACT_JID],
            "by": "5511900000001@s.whatsapp.net",
            "timestamp": 1763800700,
        },
        "groups",
        "groups",
        [
            {
                "group_id": GROUP_JID,
                "type": "group_participants_update",
                "timestamp": "1763800700",
                "added_participants": [{"input": CONTACT_JID, "wa_id": "5511988887777"}],
                "initiated_by": "5511900000001",
            }
        ],
    ),
    "group_leave": (
        {"group": GROUP_JID, "participants": [CONTACT_JID], "timestamp": 1763800800},
        "groups",
        "groups",
        [
            {
                "group_id": GROUP_JID,
                "type": "group_participants_update",
                "timestamp": "1763800800",
                "removed_participants": [{"input": CONTACT_JID, "wa_id": "5511988887777"}],
            }
        ],
    ),
    "health": (
        {"status": "blocked", "reason": "account banned", "timestamp": 1763800900},
        "health",
        "health",
        {"can_send_message": "BLOCKED", "reason": "account banned", "timestamp": "1763800900"},
    ),
}


@pytest.mark.parametrize("name", list(OTHER_CASES))
def test_every_other_event_renders_its_designed_field_and_passes_the_schema(session, name):
    data, field, key, expected = OTHER_CASES[name]
    body = body_of(session, name, data)
    validate_envelope(body)
    (change,) = body["entry"][0]["changes"]
    assert change["field"] == field
    assert change["value"][key] == expected


def test_a_failed_ack_carries_an_error(session):
    body = body_of(
        session,
        "message_ack",
        {"messageId": "3EB0X", "chat": GROUP_JID, "status": "failed", "error": "not in group"},
    )
    validate_envelope(body)
    (status,) = body["entry"][0]["changes"][0]["value"]["statuses"]
    assert status["status"] == "failed"
    assert status["recipient_type"] == "group"
    assert status["errors"] == [{"code": 131000, "title": "not in group"}]


def test_the_schema_refuses_an_object_the_seed_does_not_list(session):
    body = body_of(session, "message", message(type="audio", **MEDIA))
    del _only_message(body)["audio"]["voice"]
    with pytest.raises(jsonschema.ValidationError):
        validate_envelope(body)
    body = body_of(session, "message", message(text="x"))
    _only_message(body)["image"] = {"id": "1"}
    with pytest.raises(jsonschema.ValidationError):
        validate_envelope(body)
    body = body_of(session, "message", message(type="reaction", reaction={"messageId": "T", "emoji": "👍"}))
    _only_message(body)["reaction"]["emoji"] = ""  # a removal has no emoji at all, not an empty one
    with pytest.raises(jsonschema.ValidationError):
        validate_envelope(body)
    body = body_of(session, "message", message(type="poll_creation"))
    del _only_message(body)["errors"]
    with pytest.raises(jsonschema.ValidationError):
        validate_envelope(body)
    body = body_of(session, "message", message(type="document", fileName="a.pdf", **MEDIA))
    del _only_message(body)["document"]["caption"]
    with pytest.raises(jsonschema.ValidationError):
        validate_envelope(body)


def test_the_plain_format_carries_the_seed_message_fields(session):
    configure(session, webhook_format=InstanceWebhookConfig.Format.PLAIN)
    body = body_of(session, "message", message(text="plain please"))
    validate_plain(body)
    assert body["event"] == "message"
    assert body["field"] == "messages"
    assert body["instance"] == str(session.id)
    assert body["data"]["text"] == "plain please"
    for field in (
        "id",
        "chat",
        "chatId",
        "remoteJid",
        "sender",
        "pushName",
        "text",
        "timestamp",
        "fromMe",
        "type",
        "mediaUrl",
    ):
        assert field in body["data"]
    assert body["data"]["chatId"] == CONTACT_JID

    connected = body_of(session, "connected", {"jid": "5511900000001@s.whatsapp.net"})
    validate_plain(connected)
    assert connected["field"] == "connection"


def test_only_the_contracts_spellings_are_read(session):
    """Alternative spellings of other gateways (`mimetype`, `qr`, `isVideo`, `author`) are not read."""
    image = body_of(session, "message", message(type="image", mimetype="image/png", **MEDIA))
    assert _only_message(image)["image"]["mime_type"] == "image/jpeg"  # the default, not `mimetype`
    qr = body_of(session, "qr", {"qr": "2@old-spelling", "code": "x"})
    assert qr["entry"][0]["changes"][0]["value"]["qrcode"]["code"] == ""
    call = body_of(session, "call", {"from": CONTACT_JID, "isVideo": True})
    assert call["entry"][0]["changes"][0]["value"]["calls"][0]["media"] == "voice"


def test_group_chats_are_told_by_the_configured_group_suffix(session, settings):
    settings.MESSAGING_GROUP_SUFFIX = "groups.example"
    other = body_of(session, "message", message(chat="120363025246125486@groups.example", text="hi"))
    assert _only_message(other)["chat_type"] == "group"
    assert _only_message(other)["group_id"] == "120363025246125486@groups.example"
    classic = body_of(session, "message", message(chat=GROUP_JID, text="hi"))
    assert _only_message(classic)["chat_type"] == "individual"


def test_mentions_ride_as_ponte_s_extension_numbers_as_digits_and_linked_ids_as_they_are(session):
    mentioned = [CONTACT_JID, "190000111222333@lid"]
    body = body_of(session, "message", message(chat=GROUP_JID, text="@todos", mentions=mentioned))
    validate_envelope(body)
    assert _only_message(body)["mentions"] == [CONTACT_JID.split("@")[0], "190000111222333@lid"]
    plain = body_of(session, "message", message(text="ninguém"))
    assert "mentions" not in _only_message(plain)
