"""`messages[]` (with `contacts[]`): the message family of the `meta` body, one entry per message."""

from __future__ import annotations

import time
from typing import Any

from messaging.addressing import is_group
from messaging.engines.events import MessageEvent
from messaging.models import Session
from messaging.vcard import vcard, vcard_name
from webhooks.meta.common import (
    DEFAULT_MIME,
    MESSENGER,
    OBJECT,
    OBJECT_TYPES,
    as_text,
    base_value,
    contact_entry,
    is_lid,
    own_number,
    unix_seconds,
    user_part,
)
from webhooks.meta.lists import LIST_TYPES, list_entry, text_object
from webhooks.models import Event


def _media(message: MessageEvent, kind: str) -> dict[str, Any]:
    return {
        "id": as_text(message.media_id or message.id),
        "url": as_text(message.media_url),
        "mime_type": as_text(message.mime_type or DEFAULT_MIME[kind]),
        "sha256": as_text(message.sha256),
    }


def _contacts_object(message: MessageEvent) -> list[dict[str, Any]]:
    result = []
    for card in message.contacts or ():
        text = card.vcard or vcard(card.display_name, card.phone_number or "", card.organization or "")
        name = card.display_name or vcard_name(text)
        result.append({"name": {"formatted_name": name}, "vcard": text})
    return result


def _type_object(session: Session, message: MessageEvent) -> Any:
    """The object named after the message's type (`text`, `image`, ..., `reaction`: OBJECT_TYPES)."""
    kind = message.type
    if kind == "text":
        return text_object(message)
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
            "filename": as_text(message.file_name),
            "caption": as_text(message.caption),
        }
    if kind == "sticker":
        obj = {**_media(message, kind), "animated": bool(message.animated)}
        if session.provider == MESSENGER:
            obj["sticker_id"] = as_text(message.sticker_id)
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
            "button_reply": {"id": as_text(message.selected_id), "title": as_text(message.selected_title)},
        }
    elif message.type in LIST_TYPES:
        list_entry(message, entry)
    elif message.type == "button":
        entry["type"] = "button"
        entry["button"] = {"payload": as_text(message.selected_id), "text": as_text(message.selected_title)}
    else:
        entry["type"] = "unsupported"
        entry["errors"] = [
            {"code": 131051, "title": "Message type unknown", "details": f"Ponte type {message.type!r}"}
        ]


def _message_entry(session: Session, event: Event, message: MessageEvent) -> tuple[dict, dict]:
    """One `messages[]` entry and its `contacts[]` entry."""
    chat = message.chat
    sender = message.sender or ("" if message.from_me else chat)
    lid = sender if is_lid(sender) else as_text(message.sender_lid)
    if message.from_me:
        number = own_number(session) or user_part(sender)
    else:
        number = user_part(message.sender_pn or sender)
    group = is_group(chat)
    entry: dict[str, Any] = {
        "from": number,
        "chat_type": "group" if group else "individual",
        "id": message.id,
        "timestamp": unix_seconds(message.timestamp, event.event_ms),
    }
    if lid:
        entry["from_user_id"] = lid
    if group:
        entry["group_id"] = chat
    if message.from_me:
        entry["to"] = user_part(chat)
    if message.quoted is not None and message.quoted.message_id:
        entry["context"] = {"id": message.quoted.message_id}
    if message.forwarded:  # the cloud API's own flag on a forwarded message
        entry["context"] = {**entry.get("context", {}), "forwarded": True}
    if message.mentions:  # Ponte's extension: the Cloud API's messages name no mentions
        entry["mentions"] = [user_part(jid) if not is_lid(jid) else jid for jid in message.mentions]
    if message.type in OBJECT_TYPES:
        entry["type"] = message.type
        entry[message.type] = _type_object(session, message)
    else:
        _interactive(message, entry)

    if message.from_me:
        contact = contact_entry(session, number=user_part(chat), name=as_text(message.chat_name))
    else:
        contact = contact_entry(session, number=number, name=message.push_name, user_id=lid)
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
    value = {**base_value(session), "contacts": [contact], "messages": [entry]}
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
