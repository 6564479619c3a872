"""Rendering of instance-webhook bodies: the `meta` (cloud-API) envelope and the `plain` one.

`meta` follows the official cloud API's webhook envelope (seed 002 b, reference/messaging-engines.md §6)
with `object` = "ponte" and `provider`, `instance`, `official` on top:

    {"object": "ponte", "provider": "whatsapp", "instance": "<id>", "official": false,
     "entry": [{"id": "ponte_<base64url id>", "changes": [{"field": "messages", "value": {...}}]}]}

`value` always carries `messaging_product` and `metadata {display_phone_number, phone_number_id}`, then
one list named after what happened: `messages[]` (with `contacts[]`), `statuses[]` (message_ack),
`presences[]`, `connection`, `qrcode`, `calls[]`, `groups[]`, `health`. The shapes the seed leaves out
are Ponte's design after the cloud API; docs/instance-webhooks.md shows one example of each.

Inputs are the typed events of messaging's event contract (messaging.engines.events), parsed back from
the stored data: only their fields are read, under one spelling each.
"""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from messaging.addressing import is_group
from messaging.engines.events import (
    CallEvent,
    ConnectedEvent,
    DisconnectedEvent,
    EngineEvent,
    GroupChange,
    HealthEvent,
    MessageAckEvent,
    MessageEvent,
    PresenceEvent,
    QrEvent,
)
from messaging.models import Session
from webhooks.models import Event

OBJECT = "ponte"
ENTRY_PREFIX = "ponte_"

# The sender-id key of `contacts[]` per channel (`wa_id` on the cloud API).
APP_ID_KEYS = {"whatsapp": "wa_id", "instagram": "ig_id", "messenger": "fb_id"}
# The social-messenger channel gets sticker ids, reaction actions and the ordering block.
MESSENGER = "messenger"

DEFAULT_MIME = {
    "image": "image/jpeg",
    "audio": "audio/ogg; codecs=opus",
    "video": "video/mp4",
    "document": "application/octet-stream",
    "sticker": "image/webp",
}

# The contract's message types rendered as an object named after them (the rest: interactive, unsupported).
OBJECT_TYPES = ("text", "image", "audio", "video", "document", "sticker", "location", "contacts", "reaction")
STATUS_NAMES = {"sent", "delivered", "read", "played", "failed"}
PRESENCE_NAMES = {"available", "unavailable", "composing", "recording", "paused"}
HEALTH_NAMES = {"AVAILABLE", "LIMITED", "BLOCKED"}

# Event name → `entry[].changes[].field`.
FIELDS = {
    "message": "messages",
    "message_ack": "messages",
    "presence": "presence",
    "connected": "connection",
    "disconnected": "connection",
    "qr": "qrcode",
    "call": "call",
    "group_join": "groups",
    "group_leave": "groups",
    "group_update": "groups",
    "health": "health",
}


# --- Small helpers ----------------------------------------------------------------------------------


def instance_id(session: Session) -> str:
    """The instance id of the envelope (`instance`, `metadata.phone_number_id`): the session's id."""
    return str(session.id)


def entry_id(session: Session) -> str:
    """`entry[].id`: the prefix plus the session id's 16 bytes in unpadded base64url (22 characters)."""
    raw = UUID(str(session.id)).bytes
    return ENTRY_PREFIX + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_entry_id(value: str) -> UUID:
    """The session id inside an `entry[].id` (what a receiver does to find the instance)."""
    if not value.startswith(ENTRY_PREFIX):
        raise ValueError(f"not a Ponte entry id: {value!r}")
    encoded = value[len(ENTRY_PREFIX) :]
    return UUID(bytes=base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))


def user_part(jid: Any) -> str:
    """`5511999990000@s.whatsapp.net` or `5511999990000:12@…` → `5511999990000`."""
    text = str(jid or "")
    return text.split("@", 1)[0].split(":", 1)[0]


def is_lid(jid: Any) -> bool:
    return str(jid or "").endswith("@lid")


def _seconds(value: int | None, fallback_ms: int) -> str:
    """A Unix-seconds timestamp as the cloud API writes it (a string); the event time when unset."""
    number = int(value or 0)
    return str(number if number > 0 else fallback_ms // 1000)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _own_number(session: Session) -> str:
    return user_part(session.jid) or "".join(ch for ch in session.phone if ch.isdigit())


def _metadata(session: Session) -> dict[str, str]:
    return {"display_phone_number": _own_number(session), "phone_number_id": instance_id(session)}


def envelope_provider(session: Session) -> str:
    """The envelope's channel: one of three (seed 002 b); the Cloud API is `whatsapp`, `official: true`."""
    return "whatsapp" if session.provider == "whatsapp_cloud" else session.provider


def _base_value(session: Session) -> dict[str, Any]:
    return {"messaging_product": envelope_provider(session), "metadata": _metadata(session)}


def _envelope(session: Session, field: str, value: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": OBJECT,
        "provider": envelope_provider(session),
        "instance": instance_id(session),
        "official": bool(session.official),
        "entry": [{"id": entry_id(session), "changes": [{"field": field, "value": value}]}],
    }


def _contact(session: Session, *, number: str, name: str, user_id: str = "") -> dict[str, Any]:
    contact: dict[str, Any] = {
        "profile": {"name": name},
        APP_ID_KEYS.get(envelope_provider(session), "wa_id"): number,
    }
    if user_id:
        contact["user_id"] = user_id
    return contact


# --- messages ---------------------------------------------------------------------------------------


def _media(message: MessageEvent, kind: str) -> dict[str, Any]:
    return {
        "id": _text(message.media_id or message.id),
        "url": _text(message.media_url),
        "mime_type": _text(message.mime_type or DEFAULT_MIME[kind]),
        "sha256": _text(message.sha256),
    }


def _vcard_of(display_name: str, phone_number: str, organization: str | None) -> str:
    """A vCard 3.0 for a card given by its fields (messaging's shape)."""
    number = "".join(ch for ch in phone_number if ch.isdigit())
    lines = ["BEGIN:VCARD", "VERSION:3.0", f"FN:{display_name}"]
    if organization:
        lines.append(f"ORG:{organization}")
    if number:
        lines.append(f"TEL;type=CELL;waid={number}:+{number}")
    lines.append("END:VCARD")
    return "\n".join(lines)


def _vcard_name(vcard: str) -> str:
    for line in vcard.splitlines():
        if line.upper().startswith(("FN:", "FN;")):
            return line.split(":", 1)[1].strip()
    return ""


def _contacts_object(message: MessageEvent) -> list[dict[str, Any]]:
    result = []
    for card in message.contacts or ():
        vcard = card.vcard or _vcard_of(card.display_name, card.phone_number, card.organization)
        name = card.display_name or _vcard_name(vcard)
        result.append({"name": {"formatted_name": name}, "vcard": vcard})
    return result


def _type_object(session: Session, message: MessageEvent) -> Any:
    """The object named after the message's type (seed 002 b, table of `messages[]` types)."""
    kind = message.type
    if kind == "text":
        return {"body": message.text}
    if kind in ("image", "video"):
        obj = _media(message, kind)
        if message.caption:
            obj["caption"] = message.caption
        return obj
    if kind == "audio":
        return {**_media(message, kind), "voice": bool(message.voice)}
    if kind == "document":
        return {
            **_media(message, kind),
            "filename": _text(message.file_name),
            "caption": _text(message.caption),
        }
    if kind == "sticker":
        obj = {**_media(message, kind), "animated": bool(message.animated)}
        if session.provider == MESSENGER:
            obj["sticker_id"] = _text(message.sticker_id)
        return obj
    if kind == "location":
        place = message.location
        return {
            "latitude": float(place.latitude) if place else 0.0,
            "longitude": float(place.longitude) if place else 0.0,
            "name": place.name if place else "",
            "address": place.address if place else "",
        }
    if kind == "contacts":
        return _contacts_object(message)
    # reaction
    reaction = message.reaction
    emoji = reaction.emoji if reaction else ""
    obj = {"message_id": reaction.message_id if reaction else ""}
    if emoji:  # a removal carries no emoji
        obj["emoji"] = emoji
    if session.provider == MESSENGER:
        obj["action"] = "react" if emoji else "unreact"
    return obj


def _interactive(message: MessageEvent, entry: dict[str, Any]) -> None:
    if message.type == "button_reply":
        entry["type"] = "interactive"
        entry["interactive"] = {
            "type": "button_reply",
            "button_reply": {"id": _text(message.selected_id), "title": _text(message.selected_title)},
        }
    elif message.type == "list_reply":
        entry["type"] = "interactive"
        entry["interactive"] = {
            "type": "list_reply",
            "list_reply": {
                "id": _text(message.selected_id),
                "title": _text(message.selected_title),
                "description": _text(message.selected_description),
            },
        }
    elif message.type == "button":
        entry["type"] = "button"
        entry["button"] = {"payload": _text(message.selected_id), "text": _text(message.selected_title)}
    else:
        entry["type"] = "unsupported"
        entry["errors"] = [
            {"code": 131051, "title": "Message type unknown", "details": f"Ponte type {message.type!r}"}
        ]


def _message_entry(session: Session, event: Event, message: MessageEvent) -> tuple[dict, dict]:
    """One `messages[]` entry and its `contacts[]` entry."""
    chat = message.chat
    sender = message.sender or ("" if message.from_me else chat)
    lid = sender if is_lid(sender) else _text(message.sender_lid)
    if message.from_me:
        number = _own_number(session) or user_part(sender)
    else:
        number = user_part(message.sender_pn or sender)
    group = is_group(chat)
    entry: dict[str, Any] = {
        "from": number,
        "chat_type": "group" if group else "individual",
        "id": message.id,
        "timestamp": _seconds(message.timestamp, event.event_ms),
    }
    if lid:
        entry["from_user_id"] = lid
    if group:
        entry["group_id"] = chat
    if message.from_me:
        entry["to"] = user_part(chat)
    if message.quoted is not None and message.quoted.message_id:
        entry["context"] = {"id": message.quoted.message_id}
    if message.type in OBJECT_TYPES:
        entry["type"] = message.type
        entry[message.type] = _type_object(session, message)
    else:
        _interactive(message, entry)

    if message.from_me:
        contact = _contact(session, number=user_part(chat), name=_text(message.chat_name))
    else:
        contact = _contact(session, number=number, name=message.push_name, user_id=lid)
    return entry, contact


def _ordering_block(event: Event, dispatched_ms: int) -> dict[str, int]:
    """The social-messenger ordering block: receivers sort by `seq` (delivery is parallel)."""
    return {
        "seq": event.sequence,
        "event_ms": event.event_ms,
        "received_at_ms": event.received_at_ms,
        "dispatched_at_ms": dispatched_ms,
    }


def messages_value(session: Session, event: Event, message: MessageEvent) -> dict[str, Any]:
    entry, contact = _message_entry(session, event, message)
    value = {**_base_value(session), "contacts": [contact], "messages": [entry]}
    if session.provider == MESSENGER:
        value[OBJECT] = _ordering_block(event, int(time.time() * 1000))
    return value


def stamp_dispatch(payload: Any, dispatched_ms: int) -> Any:
    """The payload with the ordering block's `dispatched_at_ms` set to when this POST is sent (each
    attempt its own); payloads without the block are returned unchanged."""
    try:
        value = payload["entry"][0]["changes"][0]["value"]
        block = value[OBJECT]
    except (KeyError, IndexError, TypeError):
        return payload
    if not isinstance(block, dict) or "dispatched_at_ms" not in block:
        return payload
    stamped = {**value, OBJECT: {**block, "dispatched_at_ms": dispatched_ms}}
    change = {**payload["entry"][0]["changes"][0], "value": stamped}
    entry = {**payload["entry"][0], "changes": [change, *payload["entry"][0]["changes"][1:]]}
    return {**payload, "entry": [entry, *payload["entry"][1:]]}


# --- Everything else ----------------------------------------------------------------------------------


def statuses_value(session: Session, event: Event, ack: MessageAckEvent) -> dict[str, Any]:
    chat = ack.chat or event.chat
    group = is_group(chat)
    state = ack.status.lower() if ack.status.lower() in STATUS_NAMES else "sent"
    status: dict[str, Any] = {
        "id": ack.message_id,
        "status": state,
        "timestamp": _seconds(ack.timestamp, event.event_ms),
        "recipient_id": user_part(chat or ack.recipient),
        "recipient_type": "group" if group else "individual",
    }
    if group and ack.participant:
        status["participant_id"] = user_part(ack.participant)
    if state == "failed":
        status["errors"] = [{"code": 131000, "title": ack.error or "Message failed to send"}]
    return {**_base_value(session), "statuses": [status]}


def presence_value(session: Session, event: Event, presence: PresenceEvent) -> dict[str, Any]:
    chat = presence.chat or event.chat
    group = is_group(chat)
    state = presence.presence.lower()
    entry: dict[str, Any] = {
        "from": user_part(presence.sender or chat),
        "chat_type": "group" if group else "individual",
        "status": state if state in PRESENCE_NAMES else "available",
        "timestamp": _seconds(presence.timestamp, event.event_ms),
    }
    if group:
        entry["group_id"] = chat
    if presence.last_seen:
        entry["last_seen"] = _seconds(presence.last_seen, event.event_ms)
    return {**_base_value(session), "presences": [entry]}


def connection_value(
    session: Session, event: Event, change: ConnectedEvent | DisconnectedEvent
) -> dict[str, Any]:
    connection: dict[str, Any] = {
        "status": change.name,
        "timestamp": _seconds(change.timestamp, event.event_ms),
    }
    if isinstance(change, ConnectedEvent):
        connection["phone_number"] = user_part(change.jid or session.jid) or _own_number(session)
        if change.push_name:
            connection["name"] = change.push_name
    else:
        connection["reason"] = change.reason or "unknown"
    return {**_base_value(session), "connection": connection}


def qrcode_value(session: Session, event: Event, qr: QrEvent) -> dict[str, Any]:
    qrcode: dict[str, Any] = {"code": qr.qr_code, "timestamp": _seconds(qr.timestamp, event.event_ms)}
    if qr.image:
        qrcode["image"] = qr.image
    if qr.expires_at:
        qrcode["expires_at"] = qr.expires_at
    if qr.serial:
        qrcode["attempt"] = qr.serial
    return {**_base_value(session), "qrcode": qrcode}


def call_value(session: Session, event: Event, call: CallEvent) -> dict[str, Any]:
    caller = call.caller or event.chat
    entry = {
        "id": _text(call.call_id),
        "from": user_part(caller),
        "to": _own_number(session),
        "event": call.status.lower(),
        "media": "video" if call.video else "voice",
        "direction": "USER_INITIATED",
        "is_group": call.is_group,
        "timestamp": _seconds(call.timestamp, event.event_ms),
    }
    contact = _contact(session, number=user_part(caller), name=_text(call.push_name))
    return {**_base_value(session), "contacts": [contact], "calls": [entry]}


def groups_value(session: Session, event: Event, change: GroupChange) -> dict[str, Any]:
    update: dict[str, Any] = {
        "group_id": change.group or event.chat,
        "type": "group_subject_update" if change.name == "group_update" else "group_participants_update",
        "timestamp": _seconds(change.timestamp, event.event_ms),
    }
    if change.name != "group_update":
        key = "added_participants" if change.name == "group_join" else "removed_participants"
        update[key] = [{"input": p, "wa_id": user_part(p)} for p in change.participants]
    if change.subject:
        update["subject"] = change.subject
    if change.by:
        update["initiated_by"] = user_part(change.by)
    return {**_base_value(session), "groups": [update]}


def health_value(session: Session, event: Event, health: HealthEvent) -> dict[str, Any]:
    status = health.status.upper()
    value = {
        "can_send_message": status if status in HEALTH_NAMES else "LIMITED",
        "reason": health.reason,
        "timestamp": _seconds(health.timestamp, event.event_ms),
    }
    return {**_base_value(session), "health": value}


_VALUES = {
    "message": messages_value,
    "message_ack": statuses_value,
    "presence": presence_value,
    "connected": connection_value,
    "disconnected": connection_value,
    "qr": qrcode_value,
    "call": call_value,
    "group_join": groups_value,
    "group_leave": groups_value,
    "group_update": groups_value,
    "health": health_value,
}


def meta_envelope(session: Session, event: Event, typed: EngineEvent) -> dict[str, Any]:
    """The `meta` body of an event (names in FIELDS only)."""
    return _envelope(session, FIELDS[event.name], _VALUES[event.name](session, event, typed))


def plain_envelope(session: Session, event: Event, typed: EngineEvent) -> dict[str, Any]:
    """The `plain` body: the registered webhooks' `{event, session_id, data, timestamp}`, plus the
    instance fields and the `meta` field name, so both formats route the same way."""
    return {
        "event": event.name,
        "field": FIELDS[event.name],
        "instance": instance_id(session),
        "provider": envelope_provider(session),
        "official": bool(session.official),
        "session_id": str(session.id),
        "data": typed.to_data(),
        "timestamp": datetime.fromtimestamp(event.event_ms / 1000, tz=UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
    }
