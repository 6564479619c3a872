"""Chat actions, blocks and labels (issue 41) in the `meta` body: Ponte's extension, as the cloud API
reports none of them (its Block Users API answers calls but sends no webhook). Three fields of their own,
each a list named after what it carries, like every other `value`:

    field "chats":     {"chats": [{"id": "5511988880002", "chat_type": "individual", "action": "pin",
                                   "pinned": true, "timestamp": "..."}]}
        (`action` archive → `archived`, pin → `pinned`, mute → `muted_until` (Unix seconds as a string,
        null when unmuted), unread → `unread`)
    field "blocklist": {"blocklist": [{"wa_id": "5511988880002", "action": "block", "timestamp": "..."}]}
    field "labels":    {"labels": [{"id": "1", "name": "VIP", "color": 4, "deleted": false,
                                    "timestamp": "..."}]}
                       {"label_associations": [{"label_id": "1", "chat_id": "5511988880002",
                                                "chat_type": "individual", "labeled": true,
                                                "timestamp": "..."}]}
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from messaging.addressing import is_group
from messaging.engines.chat_events import (
    ChatMuteEvent,
    ChatPinEvent,
    ChatUnreadEvent,
    ContactBlockEvent,
    LabelAssociationEvent,
    LabelEditEvent,
)
from messaging.engines.events import ChatArchiveEvent, EngineEvent
from messaging.models import Session
from webhooks.meta.common import base_value, unix_seconds, user_part
from webhooks.models import Event

CHAT_STATE_FIELD, BLOCKLIST_FIELD, LABELS_FIELD = "chats", "blocklist", "labels"


def _chat_id(chat: str) -> str:
    return chat if is_group(chat) else user_part(chat)


def _muted_until(value: str | None) -> str | None:
    if not value:
        return None
    try:
        return str(int(datetime.fromisoformat(value).timestamp()))
    except ValueError:
        return None


def _state(event: EngineEvent) -> tuple[str, str, Any]:
    if isinstance(event, ChatArchiveEvent):
        return "archive", "archived", event.archived
    if isinstance(event, ChatPinEvent):
        return "pin", "pinned", event.pinned
    if isinstance(event, ChatMuteEvent):
        return "mute", "muted_until", _muted_until(event.muted_until)
    if isinstance(event, ChatUnreadEvent):
        return "unread", "unread", event.unread
    raise TypeError(f"not a chat action: {event.name}")


def chats_value(session: Session, event: Event, typed: EngineEvent) -> dict[str, Any]:
    action, key, value = _state(typed)
    chat = typed.chat or event.chat
    entry = {
        "id": _chat_id(chat),
        "chat_type": "group" if is_group(chat) else "individual",
        "action": action,
        key: value,
        "timestamp": unix_seconds(getattr(typed, "timestamp", None), event.event_ms),
    }
    return {**base_value(session), "chats": [entry]}


def blocklist_value(session: Session, event: Event, block: ContactBlockEvent) -> dict[str, Any]:
    entry = {
        "wa_id": user_part(block.jid),
        "action": "block" if block.blocked else "unblock",
        "timestamp": unix_seconds(block.timestamp, event.event_ms),
    }
    return {**base_value(session), "blocklist": [entry]}


def labels_value(session: Session, event: Event, typed: EngineEvent) -> dict[str, Any]:
    at = unix_seconds(getattr(typed, "timestamp", None), event.event_ms)
    if isinstance(typed, LabelEditEvent):
        label = {
            "id": typed.label_id,
            "name": typed.label_name,
            "color": typed.color,
            "deleted": typed.deleted,
        }
        return {**base_value(session), "labels": [{**label, "timestamp": at}]}
    if not isinstance(typed, LabelAssociationEvent):
        raise TypeError(f"not a label event: {typed.name}")
    entry = {
        "label_id": typed.label_id,
        "chat_id": _chat_id(typed.chat),
        "chat_type": "group" if is_group(typed.chat) else "individual",
        "labeled": typed.labeled,
        "timestamp": at,
    }
    return {**base_value(session), "label_associations": [entry]}
