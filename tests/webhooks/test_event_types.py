"""The typed event catalogue: `GET /gateway/event-types`, one JSON Schema per body a registered webhook
receives, built from the event contract; every event the sandbox emits, over every kind of message,
validates against its schema closed to unknown fields (so a schema lists every field that is sent)."""

from __future__ import annotations

import base64

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from rest_framework.test import APIClient

from messaging.api.sandbox_messages import MESSAGE_TYPES as SANDBOX_MESSAGE_TYPES
from messaging.engines.events import EVENT_TYPES
from tests.messaging.audio_inputs import tone
from tests.messaging.pairing import pair_sandbox_session
from webhooks.catalogue import ALIASES, EVENTS, OPERATIONAL, TEST_EVENT
from webhooks.event_schemas import closed
from webhooks.event_types import event_types
from webhooks.models import Delivery, Webhook

pytestmark = pytest.mark.django_db

CUSTOMER, SELF, GROUP = "5511988880001", "5511999990001", "120363000000000001@g.us"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 64).decode()
VOICE = base64.b64encode(tone("ogg", seconds=0.5)).decode()


def _validators() -> dict[str, Draft202012Validator]:
    return {
        entry["name"]: Draft202012Validator(closed(entry["schema"]), format_checker=FormatChecker())
        for entry in event_types()
    }


def test_any_key_reads_every_event_with_its_aliases_schema_and_example(keyed_client, viewer_key, api_client):
    reply = keyed_client(viewer_key).get("/gateway/event-types")
    assert reply.status_code == 200
    entries = reply.json()
    assert [entry["name"] for entry in entries] == [*EVENTS, *OPERATIONAL, TEST_EVENT]
    by_name = {entry["name"]: entry for entry in entries}
    assert by_name["message"]["aliases"] == ["messages", "message.received"]
    assert by_name["connected"]["aliases"] == ["connection", "session.connected"]
    assert by_name["message"]["description"] == EVENTS["message"]
    message = by_name["message"]["schema"]
    assert message["properties"]["event"] == {
        "const": "message",
        "description": "The event's canonical name.",
    }
    assert {"id", "chat", "chatId", "remoteJid", "fromMe", "mediaUrl"} <= set(
        message["properties"]["data"]["required"]
    )
    assert message["properties"]["data"]["properties"]["mediaUrl"]["type"] == ["string", "null"]
    api_client.credentials()
    assert api_client.get("/gateway/event-types").status_code == 401


def test_the_catalogue_covers_the_whole_event_contract_and_every_alias():
    assert set(EVENTS) == set(EVENT_TYPES)
    aliases = [alias for entry in event_types() for alias in entry["aliases"]]
    assert sorted(aliases) == sorted(ALIASES)


def test_every_example_is_valid_against_its_own_closed_schema():
    validators = _validators()
    for entry in event_types():
        validators[entry["name"]].validate(entry["example"])


def test_a_schema_refuses_a_body_of_the_wrong_shape():
    validator = _validators()["message"]
    (good,) = [entry["example"] for entry in event_types() if entry["name"] == "message"]
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "event": "qr"})
    assert not validator.is_valid({**good, "data": {**good["data"], "fromMe": "no"}})
    assert not validator.is_valid({**good, "data": {**good["data"], "type": "hologram"}})
    assert not validator.is_valid({**good, "data": {**good["data"], "undocumented": 1}})
    missing = dict(good["data"])
    del missing["remoteJid"]
    assert not validator.is_valid({**good, "data": missing})


LINK_CARD = {"url": "https://a.example", "title": "A", "description": "An example"}
LIST = {
    "text": "Pick one",
    "buttonText": "Open",
    "sections": [{"title": "S", "rows": [{"rowId": "r1", "title": "One", "description": "the first"}]}],
}


def _inbound_messages() -> list[dict]:
    """One inbound message of each kind the sandbox takes."""
    media = {"media": {"base64": PNG, "mimeType": "image/png"}}
    # A link the sandbox records as given (it fetches nothing; a closed local port if it ever did).
    linked = {"mediaUrl": "http://127.0.0.1:9/file.bin", "mimeType": "application/octet-stream"}
    kinds = [
        {"type": "text", "text": "olá", "pushName": "Maria", "messageId": "IN-TEXT"},
        {"type": "image", "caption": "a photo", "viewOnce": True, **media},
        {"type": "video", **linked},
        {"type": "audio", **linked},
        {"type": "voice", **linked},
        {"type": "document", "fileName": "invoice.pdf", "caption": "here", **linked},
        {"type": "sticker", "animated": True, **media},
        {"type": "location", "latitude": -23.55, "longitude": -46.63, "name": "Office", "address": "Av. X"},
        {"type": "contacts", "contacts": [{"displayName": "Ana", "phoneNumber": "5511977770000"}]},
        {"type": "reaction", "reactionTo": "IN-TEXT", "emoji": "👍"},
        {"type": "reaction", "reactionTo": "IN-TEXT", "emoji": ""},
        {"type": "text", "text": "in the group", "chat": GROUP},
        {"type": "text", "text": "old", "isHistory": True},
        {"type": "list_response", "listResponse": {"rowId": "r1", "title": "One"}},
        {"type": "text", "text": "https://a.example", "forwarded": True, "linkPreview": LINK_CARD},
    ]
    assert {kind["type"] for kind in kinds} == set(SANDBOX_MESSAGE_TYPES)
    return [{"event": "message", "from": CUSTOMER, **kind} for kind in kinds]


def _other_inbound(poll_id: str) -> list[dict]:
    return [
        {"event": "message_ack", "messageId": poll_id, "status": "read", "from": CUSTOMER},
        {"event": "presence", "from": CUSTOMER, "presence": "composing"},
        {"event": "call", "from": CUSTOMER, "callId": "CALL1", "video": True},
        {"event": "group_update", "group": GROUP, "subject": "Lunch club", "by": CUSTOMER},
        {"event": "group_leave", "group": GROUP, "participants": [CUSTOMER]},
        {"event": "chat_archive", "chat": CUSTOMER, "archived": True},
        {"event": "health", "status": "LIMITED", "reason": "too many messages"},
        {"event": "poll_vote", "from": CUSTOMER, "pollMessageId": poll_id, "options": ["Yes"]},
        {"event": "message_edited", "from": CUSTOMER, "messageId": "IN-TEXT", "text": "olá!"},
        {"event": "chat_pin", "chat": CUSTOMER},
        {"event": "chat_mute", "chat": GROUP, "mutedUntil": "2026-12-01T00:00:00Z"},
        {"event": "chat_mute", "chat": GROUP, "mutedUntil": None},
        {"event": "chat_unread", "chat": CUSTOMER, "unread": False},
        {"event": "contact_block", "jid": CUSTOMER},
        {"event": "label_edit", "labelId": "1", "name": "VIP", "color": 19},
        {"event": "label_association", "labelId": "1", "chat": GROUP, "labeled": False},
        {"event": "status", "from": CUSTOMER, "text": "Bom dia", "backgroundColor": "#112233", "font": 1},
        {
            "event": "status",
            "from": CUSTOMER,
            "type": "image",
            "media": {"base64": PNG, "mimeType": "image/png"},
        },
        {"event": "status", "from": CUSTOMER, "type": "revoked", "statusId": "ST1"},
        {"event": "disconnected", "reason": "logged_out"},
    ]


def _sends(api: APIClient, session_id: str) -> str:
    """What the session sends through the REST API, every kind (fromMe messages and their acks); the
    poll's id. Media as base64: nothing here reaches beyond this machine."""
    base = {"sessionId": session_id, "to": CUSTOMER}
    sent = api.post("/api/messages/send", {**base, "text": "Oi"}, format="json")
    assert sent.status_code == 200, sent.json()
    card = {"displayName": "Ana", "phoneNumber": "5511977770000", "organization": "Loja"}
    for path, body in [
        ("/api/messages/location", {"latitude": 1.5, "longitude": 2.5, "name": "Here"}),
        ("/api/messages/media", {"type": "image", "base64": PNG, "mimeType": "image/png", "caption": "c"}),
        ("/api/messages/media", {"type": "voice", "base64": VOICE, "mimeType": "audio/ogg"}),
        ("/api/messages/vcard", card),
        ("/api/messages/vcards", {"displayName": "Two", "contacts": [card, {**card, "displayName": "Bia"}]}),
        ("/api/messages/buttons", {"text": "Pick", "buttons": [{"buttonId": "a", "buttonText": "A"}]}),
        ("/api/messages/list", LIST),
        ("/api/messages/send", {"text": "https://a.example", "linkPreview": LINK_CARD}),
        ("/api/messages/forward", {"chat": CUSTOMER, "messageId": sent.json()["messageId"]}),
        ("/api/messages/reaction", {"messageId": sent.json()["messageId"], "reaction": "❤️"}),
        ("/api/messages/edit", {"messageId": sent.json()["messageId"], "text": "Oi!"}),
        (
            "/api/messages/delete",
            {"remoteJid": CUSTOMER, "messageId": sent.json()["messageId"], "fromMe": True},
        ),
    ]:
        reply = api.post(path, {**base, **body}, format="json")
        assert reply.status_code == 200, (path, reply.json())
    poll = api.post("/api/messages/poll", {**base, "name": "Lunch?", "options": ["Yes", "No"]}, format="json")
    assert poll.status_code == 200, poll.json()
    return poll.json()["messageId"]


def test_every_event_the_sandbox_emits_validates_against_its_schema(admin_key):
    api = APIClient()
    api.credentials(HTTP_X_API_KEY=admin_key)
    session = pair_sandbox_session(api)
    Webhook.objects.create(
        account=session.account, session=session, url="http://127.0.0.1:9/hook", events=list(EVENTS)
    )
    # Pairing again emits the qr and connected events the first pairing emitted before the webhook existed.
    assert api.post(f"/api/sessions/{session.pk}/logout").status_code == 200
    assert api.post(f"/api/sessions/{session.pk}/connect").status_code == 200
    scanned = api.post(f"/api/sandbox/sessions/{session.pk}/scan", {"phone": SELF}, format="json")
    assert scanned.status_code == 200, scanned.json()
    poll_id = _sends(api, str(session.pk))
    inbound = f"/api/sandbox/sessions/{session.pk}/inbound"
    joined = {"event": "group_join", "group": GROUP, "participants": [SELF, CUSTOMER], "subject": "Lunch"}
    for step in [joined, *_inbound_messages(), *_other_inbound(poll_id)]:
        reply = api.post(inbound, step, format="json")
        assert reply.status_code < 300, (step, reply.json())

    validators = _validators()
    bodies = [delivery.payload for delivery in Delivery.objects.filter(kind=Delivery.Kind.REGISTERED)]
    for body in bodies:
        errors = [f"{e.json_path}: {e.message}" for e in validators[body["event"]].iter_errors(body)]
        assert not errors, (body, errors)
    assert {body["event"] for body in bodies} == set(EVENTS)
    message_types = {body["data"]["type"] for body in bodies if body["event"] == "message"}
    # Every kind the sandbox takes in (a voice note is audio with voice: true) and the kinds only sent.
    assert message_types == set(SANDBOX_MESSAGE_TYPES) - {"voice"} | {"buttons", "poll", "revoked", "list"}
    assert any(body["data"].get("forwarded") for body in bodies if body["event"] == "message")
    assert any(body["data"].get("voice") for body in bodies if body["event"] == "message")
    assert any(body["data"].get("isHistory") for body in bodies if body["event"] == "message")


def test_the_openapi_document_is_3_1_and_lists_every_body_in_its_webhooks_section():
    from drf_spectacular.generators import SchemaGenerator

    document = SchemaGenerator().get_schema(request=None, public=True)
    assert document["openapi"].startswith("3.1")
    schemas = document["components"]["schemas"]
    assert schemas["WebhookEventName"]["enum"] == [*EVENTS, *OPERATIONAL, TEST_EVENT]
    assert list(document["webhooks"]) == [*EVENTS, *OPERATIONAL, TEST_EVENT]
    for entry in event_types():
        operation = document["webhooks"][entry["name"]]["post"]
        body = operation["requestBody"]["content"]["application/json"]
        component = body["schema"]["$ref"].removeprefix("#/components/schemas/")
        assert schemas[component] == entry["schema"] and body["example"] == entry["example"]
        assert "x-webhook-id" in {parameter["name"] for parameter in operation["parameters"]}
    assert document["webhooks"]["message_ack"]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ] == {"$ref": "#/components/schemas/MessageAckWebhookBody"}
