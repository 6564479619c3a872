"""Sandbox routes: `/api/sandbox/sessions/{id}/scan` and `/inbound` play the phone and WhatsApp.

They answer 404 for sessions on any other engine (the services check, never the views).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.errors import ValidationFailed
from messaging.addressing import is_group, normalize_group, normalize_jid, normalize_number
from messaging.api.bases import SandboxView
from messaging.api.common import SESSION_ID_PARAM, SessionOutputSerializer
from messaging.services import sessions as services

INBOUND_EVENTS = (
    "message",
    "message_ack",
    "presence",
    "call",
    "group_join",
    "group_leave",
    "group_update",
    "chat_archive",
    "health",
    "disconnected",
    "poll_vote",
    "message_edited",
)
MESSAGE_TYPES = (
    "text",
    "image",
    "video",
    "audio",
    "voice",
    "document",
    "sticker",
    "location",
    "contacts",
    "reaction",
)
# Why a connection drops (the reasons the WhatsApp driver reports too; docs/messaging.md).
DISCONNECT_REASONS = ("logged_out", "replaced", "banned", "stream_error", "connection_lost")


class SandboxScanApi(SandboxView):
    """The phone scans the current QR code (or types the pairing code): qr → connected."""

    @extend_schema_serializer(component_name="SandboxScanInput")
    class InputSerializer(serializers.Serializer):
        phone = serializers.CharField(required=False, default="", allow_blank=True)
        pairingCode = serializers.CharField(required=False, default="", allow_blank=True)

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=InputSerializer,
        responses=SessionOutputSerializer,
        operation_id="sandbox_sessions_scan",
    )
    def post(self, request: Request, session_id: str) -> Response:
        # No body parses as an empty form, which the serializer fills with its defaults; a JSON body
        # must be an object, even a falsy one (`""`, `0`, `[]`, `null`) being no "empty" body.
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        phone = data.validated_data["phone"]
        if phone:
            phone = normalize_number(phone, field="phone")
        session = services.sandbox_scan(
            session=self.session(session_id),
            phone=phone,
            pairing_code=data.validated_data["pairingCode"],
        )
        return Response(self.session_data(session))


def _jid(value: Any, field: str, **kwargs: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValidationFailed(f"{field}: required (a number with country code or a JID).")
    return normalize_jid(value, field=field, **kwargs)


def _string(data: dict, field: str, *, required: bool = False, max_length: int = 4096) -> str:
    value = data.get(field, "")
    if not isinstance(value, str) or (required and not value) or len(value) > max_length:
        raise ValidationFailed(
            f"{field}: {'required ' if required else ''}string of at most {max_length} characters."
        )
    return value


def _number(data: dict, field: str, low: float, high: float) -> float:
    value = data.get(field)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValidationFailed(f"{field}: a number from {low} to {high}.")
    return float(value)


def inbound_clean(body: Any) -> tuple[str, dict[str, Any]]:
    """Validate an inbound event body (documented in docs/messaging.md) into engine data."""
    if not isinstance(body, dict):
        raise ValidationFailed("The body must be a JSON object with an `event` field.")
    event = body.get("event")
    if event not in INBOUND_EVENTS:
        raise ValidationFailed(f"event: one of {', '.join(INBOUND_EVENTS)}.")
    if event == "message":
        return event, _clean_message(body)
    if event == "message_ack":
        status = body.get("status")
        if status not in ("delivered", "read"):
            raise ValidationFailed("status: delivered or read.")
        data = {"messageId": _string(body, "messageId", required=True, max_length=100), "status": status}
        if body.get("chat"):
            data["chat"] = _jid(body["chat"], "chat")
        if body.get("from"):
            data["from"] = _jid(body["from"], "from", allow_group=False)
        return event, data
    if event == "presence":
        presence = body.get("presence")
        allowed = ("available", "unavailable", "composing", "recording", "paused")
        if presence not in allowed:
            raise ValidationFailed(f"presence: one of {', '.join(allowed)}.")
        data = {"from": _jid(body.get("from"), "from", allow_group=False), "presence": presence}
        if body.get("chat"):
            data["chat"] = _jid(body["chat"], "chat")
        return event, data
    if event == "call":
        status = body.get("status", "offer")
        if status not in ("offer", "accept", "reject", "terminate"):
            raise ValidationFailed("status: one of offer, accept, reject, terminate.")
        video = body.get("video", False)
        if not isinstance(video, bool):
            raise ValidationFailed("video: boolean.")
        return event, {
            "from": _jid(body.get("from"), "from", allow_group=False),
            "callId": _string(body, "callId", max_length=100) or None,
            "video": video,
            "status": status,
        }
    if event == "chat_archive":
        archived = body.get("archived", True)
        if not isinstance(archived, bool):
            raise ValidationFailed("archived: boolean.")
        return event, {"chat": _jid(body.get("chat"), "chat"), "archived": archived}
    if event == "disconnected":
        reason = body.get("reason")
        if reason not in DISCONNECT_REASONS:
            raise ValidationFailed(f"reason: one of {', '.join(DISCONNECT_REASONS)}.")
        return event, {"reason": reason}
    if event == "health":
        status = body.get("status")
        if status not in ("AVAILABLE", "LIMITED", "BLOCKED"):
            raise ValidationFailed("status: one of AVAILABLE, LIMITED, BLOCKED.")
        return event, {"status": status, "reason": _string(body, "reason", max_length=500)}
    if event in ("poll_vote", "message_edited"):
        return event, _clean_poll_vote(body) if event == "poll_vote" else _clean_edit(body)
    if event == "group_update":
        data = {
            "group": normalize_group(_string(body, "group", required=True, max_length=100), field="group"),
            "subject": _string(body, "subject", required=True, max_length=100),
        }
        if body.get("by"):
            data["by"] = _jid(body["by"], "by", allow_group=False)
        return event, data
    # group_join / group_leave
    participants = body.get("participants")
    if not isinstance(participants, list) or not participants:
        raise ValidationFailed("participants: a non-empty list of numbers or JIDs.")
    data = {
        "group": normalize_group(_string(body, "group", required=True, max_length=100), field="group"),
        "participants": [_jid(p, "participants", allow_group=False) for p in participants],
    }
    if body.get("by"):
        data["by"] = _jid(body["by"], "by", allow_group=False)
    if event == "group_join":
        data["subject"] = _string(body, "subject", max_length=100)
        admins = body.get("admins", [])
        if not isinstance(admins, list):
            raise ValidationFailed("admins: a list of numbers or JIDs.")
        data["admins"] = [_jid(a, "admins", allow_group=False) for a in admins]
    return event, data


def _clean_message(body: dict) -> dict[str, Any]:
    type_ = body.get("type", "text")
    if type_ not in MESSAGE_TYPES:
        raise ValidationFailed(f"type: one of {', '.join(MESSAGE_TYPES)}.")
    from_me = body.get("fromMe", False)
    if not isinstance(from_me, bool):
        raise ValidationFailed("fromMe: boolean.")
    data: dict[str, Any] = {"type": "audio" if type_ == "voice" else type_, "fromMe": from_me}
    if from_me:
        data["chat"] = _jid(body.get("chat") or body.get("to") or body.get("from"), "chat")
        data["from"] = data["chat"]
    else:
        data["from"] = _jid(body.get("from"), "from", allow_group=False)
        if body.get("chat"):
            data["chat"] = _jid(body["chat"], "chat")
            if not is_group(data["chat"]):
                raise ValidationFailed("chat: only a group JID (for a message sent in a group).")
    data["pushName"] = _string(body, "pushName", max_length=100)
    data["text"] = _string(body, "text", required=type_ == "text")
    if body.get("messageId"):
        data["messageId"] = _string(body, "messageId", max_length=100)
    if type_ == "voice":
        type_, body = "audio", {**body, "voice": True}
    if type_ in ("image", "video", "audio", "document", "sticker"):
        if "media" in body:
            data["media"] = _clean_media(body["media"])
        else:  # a link to media kept elsewhere, passed through as given
            data["mediaUrl"] = _string(body, "mediaUrl", required=True, max_length=2000)
            data["mimeType"] = _string(body, "mimeType", max_length=100)
        data["caption"] = _string(body, "caption")
        _clean_media_extras(body, type_, data)
    elif type_ == "location":
        data["location"] = {
            "latitude": _number(body, "latitude", -90, 90),
            "longitude": _number(body, "longitude", -180, 180),
            "name": _string(body, "name", max_length=200),
            "address": _string(body, "address", max_length=500),
        }
    elif type_ == "contacts":
        contacts = body.get("contacts")
        if not isinstance(contacts, list) or not contacts:
            raise ValidationFailed("contacts: a non-empty list of {displayName, phoneNumber}.")
        data["contacts"] = [
            {
                "displayName": _string(c, "displayName", required=True, max_length=100),
                "phoneNumber": normalize_number(str(c.get("phoneNumber", "")), field="contacts.phoneNumber"),
            }
            for c in contacts
            if isinstance(c, dict)
        ]
    elif type_ == "reaction":
        data["reaction"] = {
            "messageId": _string(body, "reactionTo", required=True, max_length=100),
            "emoji": _string(body, "emoji", max_length=16),
        }
    if "isHistory" in body:  # a message of the history sync (routed to `webhookHistory`)
        if not isinstance(body["isHistory"], bool):
            raise ValidationFailed("isHistory: boolean.")
        data["isHistory"] = body["isHistory"]
    return data


def _clean_poll_vote(body: dict) -> dict[str, Any]:
    """`{from, pollMessageId, options: [names]}`: the voter's whole choice; an empty list clears it."""
    options = body.get("options")
    if not isinstance(options, list) or len(options) > 12:
        raise ValidationFailed("options: a list of the chosen option names (empty clears the vote).")
    if not all(isinstance(option, str) and 0 < len(option) <= 100 for option in options):
        raise ValidationFailed("options: option names, strings of 1 to 100 characters.")
    return {
        "from": _jid(body.get("from"), "from", allow_group=False),
        "pollMessageId": _string(body, "pollMessageId", required=True, max_length=100),
        "options": options,
    }


def _clean_edit(body: dict) -> dict[str, Any]:
    """`{from, messageId, text, chat?}`: the other side edits one of its text messages."""
    data = {
        "from": _jid(body.get("from"), "from", allow_group=False),
        "messageId": _string(body, "messageId", required=True, max_length=100),
        "text": _string(body, "text", required=True),
    }
    if body.get("chat"):
        data["chat"] = _jid(body["chat"], "chat")
    return data


def _clean_media(media: Any) -> dict[str, Any]:
    """`{"base64", "mimeType", "fileName"}`: the bytes "WhatsApp" delivers, stored by the engine."""
    if not isinstance(media, dict):
        raise ValidationFailed("media: an object with base64, mimeType and optional fileName.")
    max_bytes = settings.MESSAGING_MEDIA_MAX_BYTES
    raw = _string(media, "base64", required=True, max_length=max_bytes * 4 // 3 + 4)
    try:
        content = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationFailed("media.base64: not valid base64.") from None
    if not content or len(content) > max_bytes:
        raise ValidationFailed(f"media.base64: from 1 to {max_bytes} bytes.")
    cleaned = {"data": content, "mimeType": _string(media, "mimeType", required=True, max_length=100)}
    if media.get("fileName"):
        cleaned["fileName"] = _string(media, "fileName", max_length=255)
    return cleaned


def _clean_media_extras(body: dict, type_: str, data: dict[str, Any]) -> None:
    """The optional media fields of the event contract: `sha256`, `fileName` (documents), `voice`
    (audio: a voice note), `animated` (stickers), `viewOnce` (images and videos)."""
    if body.get("sha256"):
        data["sha256"] = _string(body, "sha256", max_length=100)
    flags = {"audio": "voice", "sticker": "animated", "image": "viewOnce", "video": "viewOnce"}
    flag = flags.get(type_)
    if flag and flag in body:
        if not isinstance(body[flag], bool):
            raise ValidationFailed(f"{flag}: boolean.")
        data[flag] = body[flag]
    if type_ == "document":
        data["fileName"] = _string(body, "fileName", max_length=255)


class SandboxInboundApi(SandboxView):
    """Inject an inbound event into a connected sandbox session (stored and emitted as an event)."""

    @extend_schema_serializer(component_name="SandboxInboundInput")
    class InputSerializer(serializers.Serializer):
        event = serializers.ChoiceField(choices=INBOUND_EVENTS)

    @extend_schema_serializer(component_name="SandboxInboundOutput")
    class OutputSerializer(serializers.Serializer):
        event = serializers.CharField()
        data = serializers.DictField()

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=InputSerializer,
        responses={201: OutputSerializer},
        operation_id="sandbox_sessions_inbound",
    )
    def post(self, request: Request, session_id: str) -> Response:
        event, data = inbound_clean(request.data)
        session = self.session(session_id)
        reported = services.sandbox_inject(session=session, event=event, data=data)
        return Response({"event": event, "data": reported}, status=201)
