"""Rendering of instance-webhook bodies: the `meta` (cloud-API) envelope and the `plain` one.

`meta` follows the official cloud API's webhook envelope (seed 002 b, reference/messaging-engines.md §6)
with `object` = "ponte" and `provider`, `instance`, `official` on top:

    {"object": "ponte", "provider": "whatsapp", "instance": "<id>", "official": false,
     "entry": [{"id": "ponte_<base64url id>", "changes": [{"field": "messages", "value": {...}}]}]}

`value` always carries `messaging_product` and `metadata {display_phone_number, phone_number_id}`, then
one list named after what happened: `messages[]` (with `contacts[]`), `statuses[]` (message_ack),
`presences[]`, `connection`, `qrcode`, `calls[]`, `groups[]`, `health`. The shapes the seed leaves out
are Ponte's design after the cloud API; docs/instance-webhooks.md shows one example of each.

Inputs are the canonical event data that engines hand to `webhooks.services.emit()`; the fields read
here are listed in docs/instance-webhooks.md ("Event data Ponte expects").
"""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

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

# Engine message types → cloud-API `type`.
TYPE_ALIASES = {
    "chat": "text",
    "conversation": "text",
    "extendedtext": "text",
    "text": "text",
    "image": "image",
    "audio": "audio",
    "ptt": "audio",
    "voice": "audio",
    "video": "video",
    "gif": "video",
    "document": "document",
    "sticker": "sticker",
    "location": "location",
    "live_location": "location",
    "contact": "contacts",
    "contacts": "contacts",
    "vcard": "contacts",
    "contacts_array": "contacts",
    "reaction": "reaction",
    "button_reply": "button_reply",
    "buttons_response": "button_reply",
    "list_reply": "list_reply",
    "list_response": "list_reply",
    "button": "button",
    "template_button_reply": "button",
}

ACK_STATUSES = {
    -1: "failed",
    0: "failed",
    1: "sent",
    2: "delivered",
    3: "read",
    4: "played",
}
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


def is_group(jid: Any) -> bool:
    return str(jid or "").endswith("@g.us")


def is_lid(jid: Any) -> bool:
    return str(jid or "").endswith("@lid")


def _seconds(value: Any, fallback_ms: int) -> str:
    """A Unix-seconds timestamp as the cloud API writes it (a string); milliseconds are scaled down."""
    try:
        number = int(float(value))
    except (TypeError, ValueError):
        number = 0
    if number <= 0:
        number = fallback_ms // 1000
    elif number > 10**11:  # milliseconds
        number //= 1000
    return str(number)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _own_number(session: Session) -> str:
    return user_part(session.jid) or "".join(ch for ch in session.phone if ch.isdigit())


def _metadata(session: Session) -> dict[str, str]:
    return {"display_phone_number": _own_number(session), "phone_number_id": instance_id(session)}


def _base_value(session: Session) -> dict[str, Any]:
    return {"messaging_product": session.provider, "metadata": _metadata(session)}


def _envelope(session: Session, field: str, value: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": OBJECT,
        "provider": session.provider,
        "instance": instance_id(session),
        "official": bool(session.official),
        "entry": [{"id": entry_id(session), "changes": [{"field": field, "value": value}]}],
    }


def _contact(session: Session, *, number: str, name: str, user_id: str = "") -> dict[str, Any]:
    contact: dict[str, Any] = {"profile": {"name": name}, APP_ID_KEYS.get(session.provider, "wa_id"): number}
    if user_id:
        contact["user_id"] = user_id
    return contact


# --- messages ---------------------------------------------------------------------------------------


def _media(data: dict[str, Any], kind: str, *, message_id: str) -> dict[str, Any]:
    return {
        "id": _text(data.get("mediaId") or message_id),
        "url": _text(data.get("mediaUrl")),
        "mime_type": _text(data.get("mimetype") or data.get("mimeType") or DEFAULT_MIME[kind]),
        "sha256": _text(data.get("sha256")),
    }


def _vcard_name(vcard: str) -> str:
    for line in vcard.splitlines():
        if line.upper().startswith("FN:") or line.upper().startswith("FN;"):
            return line.split(":", 1)[1].strip()
    return ""


def _vcard_of(card: dict[str, Any]) -> str:
    """A vCard 3.0 for a card given as `{displayName, phoneNumber, organization?}` (messaging's shape)."""
    number = "".join(ch for ch in _text(card.get("phoneNumber")) if ch.isdigit())
    lines = ["BEGIN:VCARD", "VERSION:3.0", f"FN:{_text(card.get('displayName'))}"]
    if card.get("organization"):
        lines.append(f"ORG:{_text(card['organization'])}")
    if number:
        lines.append(f"TEL;type=CELL;waid={number}:+{number}")
    lines.append("END:VCARD")
    return "\n".join(lines)


def _contacts_object(data: dict[str, Any]) -> list[dict[str, Any]]:
    cards = data.get("contacts")
    if not isinstance(cards, list) or not cards:
        cards = [{"name": data.get("displayName") or "", "vcard": data.get("vcard") or ""}]
    result = []
    for card in cards:
        card = card if isinstance(card, dict) else {"vcard": str(card)}
        vcard = _text(card.get("vcard")) or _vcard_of(card)
        name = _text(card.get("name") or card.get("displayName") or _vcard_name(vcard))
        result.append({"name": {"formatted_name": name}, "vcard": vcard})
    return result


def _type_object(session: Session, kind: str, data: dict[str, Any], *, message_id: str) -> Any:
    """The object named after the message's type (seed 002 b, table of `messages[]` types)."""
    if kind == "text":
        return {"body": _text(data.get("text") or data.get("body"))}
    if kind in ("image", "video"):
        obj = _media(data, kind, message_id=message_id)
        if data.get("caption"):
            obj["caption"] = _text(data["caption"])
        return obj
    if kind == "audio":
        voice = bool(
            data.get("voice") or data.get("ptt") or str(data.get("type", "")).lower() in ("ptt", "voice")
        )
        return {**_media(data, kind, message_id=message_id), "voice": voice}
    if kind == "document":
        return {
            **_media(data, kind, message_id=message_id),
            "filename": _text(data.get("fileName") or data.get("filename")),
            "caption": _text(data.get("caption")),
        }
    if kind == "sticker":
        obj = {**_media(data, kind, message_id=message_id), "animated": bool(data.get("animated"))}
        if session.provider == MESSENGER:
            obj["sticker_id"] = _text(data.get("stickerId"))
        return obj
    if kind == "location":
        place = data.get("location") if isinstance(data.get("location"), dict) else data
        return {
            "latitude": float(place.get("latitude") or 0),
            "longitude": float(place.get("longitude") or 0),
            "name": _text(place.get("locationName") or place.get("name")),
            "address": _text(place.get("address")),
        }
    if kind == "contacts":
        return _contacts_object(data)
    if kind == "reaction":
        nested = data.get("reaction") if isinstance(data.get("reaction"), dict) else {}
        target = nested.get("targetId") or nested.get("messageId") or data.get("targetId")
        emoji = _text(nested.get("emoji", data.get("emoji")))
        obj = {"message_id": _text(target)}
        if emoji:  # a removal carries no emoji
            obj["emoji"] = emoji
        if session.provider == MESSENGER:
            obj["action"] = "react" if emoji else "unreact"
        return obj
    raise ValueError(kind)


def _message_entry(session: Session, event: Event, data: dict[str, Any]) -> tuple[dict, dict]:
    """One `messages[]` entry and its `contacts[]` entry."""
    chat = data["chat"]
    from_me = bool(data.get("fromMe"))
    sender = data.get("sender") or ("" if from_me else chat)
    lid = sender if is_lid(sender) else _text(data.get("senderLid"))
    if from_me:
        number = _own_number(session) or user_part(sender)
    else:
        number = user_part(data.get("senderPn") or sender)
    message_id = _text(data.get("id"))
    raw_type = _text(data.get("type") or "text").lower()
    kind = TYPE_ALIASES.get(raw_type, "unsupported")
    message: dict[str, Any] = {
        "from": number,
        "chat_type": "group" if is_group(chat) else "individual",
        "id": message_id,
        "timestamp": _seconds(data.get("timestamp"), event.event_ms),
    }
    if lid:
        message["from_user_id"] = lid
    if is_group(chat):
        message["group_id"] = chat
    if from_me:
        message["to"] = user_part(chat)
    quoted = data.get("quotedId")
    if not quoted and isinstance(data.get("quoted"), dict):
        quoted = data["quoted"].get("messageId")
    if quoted:
        message["context"] = {"id": _text(quoted)}

    if kind == "button_reply":
        message["type"] = "interactive"
        message["interactive"] = {
            "type": "button_reply",
            "button_reply": {"id": _text(data.get("selectedId")), "title": _text(data.get("selectedTitle"))},
        }
    elif kind == "list_reply":
        message["type"] = "interactive"
        message["interactive"] = {
            "type": "list_reply",
            "list_reply": {
                "id": _text(data.get("selectedId")),
                "title": _text(data.get("selectedTitle")),
                "description": _text(data.get("selectedDescription")),
            },
        }
    elif kind == "button":
        message["type"] = "button"
        message["button"] = {
            "payload": _text(data.get("selectedId")),
            "text": _text(data.get("selectedTitle")),
        }
    elif kind == "unsupported":
        message["type"] = "unsupported"
        message["errors"] = [
            {"code": 131051, "title": "Message type unknown", "details": f"Ponte type {raw_type!r}"}
        ]
    else:
        message["type"] = kind
        message[kind] = _type_object(session, kind, data, message_id=message_id)

    if from_me:
        contact = _contact(session, number=user_part(chat), name=_text(data.get("chatName")))
    else:
        contact = _contact(session, number=number, name=_text(data.get("pushName")), user_id=lid)
    return message, contact


def _ordering_block(event: Event, dispatched_ms: int) -> dict[str, int]:
    """The social-messenger ordering block: receivers sort by `seq` (delivery is parallel)."""
    return {
        "seq": event.sequence,
        "event_ms": event.event_ms,
        "received_at_ms": event.received_at_ms,
        "dispatched_at_ms": dispatched_ms,
    }


def messages_value(session: Session, event: Event, data: dict[str, Any]) -> dict[str, Any]:
    message, contact = _message_entry(session, event, data)
    value = {**_base_value(session), "contacts": [contact], "messages": [message]}
    if session.provider == MESSENGER:
        value[OBJECT] = _ordering_block(event, int(time.time() * 1000))
    return value


# --- Everything else ----------------------------------------------------------------------------------


def _ack_status(data: dict[str, Any]) -> str:
    status = data.get("status")
    if isinstance(status, str) and status.lower() in STATUS_NAMES:
        return status.lower()
    ack = data.get("ack", status)
    try:
        return ACK_STATUSES.get(int(ack), "sent")
    except (TypeError, ValueError):
        return "sent"


def statuses_value(session: Session, event: Event, data: dict[str, Any]) -> dict[str, Any]:
    chat = data.get("chat") or data.get("chatId") or data.get("remoteJid") or event.chat or ""
    recipient = data.get("recipient") or chat or data.get("from")
    status: dict[str, Any] = {
        "id": _text(data.get("id") or data.get("messageId")),
        "status": _ack_status(data),
        "timestamp": _seconds(data.get("timestamp"), event.event_ms),
        "recipient_id": user_part(recipient),
        "recipient_type": "group" if is_group(chat) else "individual",
    }
    if is_group(chat) and data.get("participant"):
        status["participant_id"] = user_part(data["participant"])
    if status["status"] == "failed":
        status["errors"] = [{"code": 131000, "title": _text(data.get("error") or "Message failed to send")}]
    return {**_base_value(session), "statuses": [status]}


def presence_value(session: Session, event: Event, data: dict[str, Any]) -> dict[str, Any]:
    chat = _text(data.get("chat") or data.get("chatId") or event.chat)
    who = _text(data.get("from") or data.get("sender") or data.get("jid") or chat)
    state = _text(data.get("presence") or data.get("status") or "available").lower()
    entry: dict[str, Any] = {
        "from": user_part(who),
        "chat_type": "group" if is_group(chat) else "individual",
        "status": state if state in PRESENCE_NAMES else "available",
        "timestamp": _seconds(data.get("timestamp"), event.event_ms),
    }
    if is_group(chat):
        entry["group_id"] = chat
    if data.get("lastSeen"):
        entry["last_seen"] = _seconds(data["lastSeen"], event.event_ms)
    return {**_base_value(session), "presences": [entry]}


def connection_value(session: Session, event: Event, data: dict[str, Any]) -> dict[str, Any]:
    connection: dict[str, Any] = {
        "status": "connected" if event.name == "connected" else "disconnected",
        "timestamp": _seconds(data.get("timestamp"), event.event_ms),
    }
    if event.name == "connected":
        connection["phone_number"] = user_part(data.get("jid") or session.jid) or _own_number(session)
        if data.get("pushName"):
            connection["name"] = _text(data["pushName"])
    else:
        connection["reason"] = _text(data.get("reason") or "unknown")
    return {**_base_value(session), "connection": connection}


def qrcode_value(session: Session, event: Event, data: dict[str, Any]) -> dict[str, Any]:
    qrcode: dict[str, Any] = {
        "code": _text(data.get("qrCode") or data.get("qr") or data.get("code")),
        "timestamp": _seconds(data.get("timestamp"), event.event_ms),
    }
    if data.get("image") or data.get("base64"):
        qrcode["image"] = _text(data.get("image") or data.get("base64"))
    if data.get("expiresAt"):
        qrcode["expires_at"] = _text(data["expiresAt"])
    if data.get("attempt") is not None:
        qrcode["attempt"] = int(data["attempt"])
    return {**_base_value(session), "qrcode": qrcode}


def call_value(session: Session, event: Event, data: dict[str, Any]) -> dict[str, Any]:
    caller = _text(data.get("from") or data.get("caller") or data.get("chat") or event.chat)
    call = {
        "id": _text(data.get("id") or data.get("callId")),
        "from": user_part(caller),
        "to": _own_number(session),
        "event": _text(data.get("status") or "offer").lower(),
        "media": "video" if data.get("isVideo") or data.get("video") else "voice",
        "direction": "USER_INITIATED",
        "is_group": bool(data.get("isGroup")),
        "timestamp": _seconds(data.get("timestamp"), event.event_ms),
    }
    contact = _contact(session, number=user_part(caller), name=_text(data.get("pushName")))
    return {**_base_value(session), "contacts": [contact], "calls": [call]}


def groups_value(session: Session, event: Event, data: dict[str, Any]) -> dict[str, Any]:
    group = _text(data.get("group") or data.get("chat") or data.get("chatId") or event.chat)
    participants = data.get("participants")
    if not isinstance(participants, list):
        participants = [data.get("participant")] if data.get("participant") else []
    key = "added_participants" if event.name == "group_join" else "removed_participants"
    update: dict[str, Any] = {
        "group_id": group,
        "type": "group_participants_update",
        "timestamp": _seconds(data.get("timestamp"), event.event_ms),
        key: [{"input": _text(p), "wa_id": user_part(p)} for p in participants],
    }
    if data.get("subject"):
        update["subject"] = _text(data["subject"])
    if data.get("author") or data.get("by"):
        update["initiated_by"] = user_part(data.get("author") or data.get("by"))
    return {**_base_value(session), "groups": [update]}


def health_value(session: Session, event: Event, data: dict[str, Any]) -> dict[str, Any]:
    status = _text(data.get("status") or "AVAILABLE").upper()
    health = {
        "can_send_message": status if status in HEALTH_NAMES else "LIMITED",
        "reason": _text(data.get("reason")),
        "timestamp": _seconds(data.get("timestamp"), event.event_ms),
    }
    return {**_base_value(session), "health": health}


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
    "health": health_value,
}


def meta_envelope(session: Session, event: Event, data: dict[str, Any]) -> dict[str, Any]:
    """The `meta` body of an event (names in FIELDS only); `data` is the shaped event data."""
    return _envelope(session, FIELDS[event.name], _VALUES[event.name](session, event, data))


def plain_envelope(session: Session, event: Event, data: dict[str, Any]) -> dict[str, Any]:
    """The `plain` body: the registered webhooks' `{event, session_id, data, timestamp}`, plus the
    instance fields and the `meta` field name, so both formats route the same way."""
    return {
        "event": event.name,
        "field": FIELDS[event.name],
        "instance": instance_id(session),
        "provider": session.provider,
        "official": bool(session.official),
        "session_id": str(session.id),
        "data": data,
        "timestamp": datetime.fromtimestamp(event.event_ms / 1000, tz=UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
    }
