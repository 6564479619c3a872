"""What every `meta` body shares: the envelope, the instance's ids, the constants of the format."""

from __future__ import annotations

import base64
from typing import Any
from uuid import UUID

from messaging.models import Session

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
    # Ponte's extension (webhooks.meta.polls_edits): the cloud API has no polls and reports no edits.
    "poll_vote": "messages",
    "message_edited": "messages",
    # Ponte's extension (webhooks.meta.chats_labels): chat actions, blocks and labels.
    "chat_archive": "chats",
    "chat_pin": "chats",
    "chat_mute": "chats",
    "chat_unread": "chats",
    "contact_block": "blocklist",
    "label_edit": "labels",
    "label_association": "labels",
    # Ponte's extension (webhooks.meta.status): the cloud API has no statuses (stories).
    "status": "status",
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


def unix_seconds(value: int | None, fallback_ms: int) -> str:
    """A Unix-seconds timestamp as the cloud API writes it (a string); the event time when unset."""
    number = int(value or 0)
    return str(number if number > 0 else fallback_ms // 1000)


def as_text(value: Any) -> str:
    return "" if value is None else str(value)


def own_number(session: Session) -> str:
    return user_part(session.jid) or "".join(ch for ch in session.phone if ch.isdigit())


def _metadata(session: Session) -> dict[str, str]:
    return {"display_phone_number": own_number(session), "phone_number_id": instance_id(session)}


def envelope_provider(session: Session) -> str:
    """The envelope's channel: `whatsapp`, `messenger` or `instagram` (the Cloud API is `whatsapp` with
    `official: true`)."""
    return "whatsapp" if session.provider == "whatsapp_cloud" else session.provider


def base_value(session: Session) -> dict[str, Any]:
    return {"messaging_product": envelope_provider(session), "metadata": _metadata(session)}


def wrap_envelope(session: Session, field: str, value: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": OBJECT,
        "provider": envelope_provider(session),
        "instance": instance_id(session),
        "official": bool(session.official),
        "entry": [{"id": entry_id(session), "changes": [{"field": field, "value": value}]}],
    }


def contact_entry(session: Session, *, number: str, name: str, user_id: str = "") -> dict[str, Any]:
    contact: dict[str, Any] = {
        "profile": {"name": name},
        APP_ID_KEYS.get(envelope_provider(session), "wa_id"): number,
    }
    if user_id:
        contact["user_id"] = user_id
    return contact
