"""Everything else the `meta` body carries: `statuses[]` (acks), `presences[]`, `connection`, `qrcode`,
`calls[]`, `groups[]` and `health`."""

from __future__ import annotations

from typing import Any

from messaging.addressing import is_group
from messaging.engines.events import (
    CallEvent,
    ConnectedEvent,
    DisconnectedEvent,
    GroupChange,
    HealthEvent,
    MessageAckEvent,
    PresenceEvent,
    QrEvent,
)
from messaging.models import Session
from webhooks.meta.common import (
    HEALTH_NAMES,
    PRESENCE_NAMES,
    STATUS_NAMES,
    as_text,
    base_value,
    contact_entry,
    own_number,
    unix_seconds,
    user_part,
)
from webhooks.models import Event


def statuses_value(session: Session, event: Event, ack: MessageAckEvent) -> dict[str, Any]:
    chat = ack.chat or event.chat
    group = is_group(chat)
    state = ack.status.lower() if ack.status.lower() in STATUS_NAMES else "sent"
    status: dict[str, Any] = {
        "id": ack.message_id,
        "status": state,
        "timestamp": unix_seconds(ack.timestamp, event.event_ms),
        "recipient_id": user_part(chat or ack.recipient),
        "recipient_type": "group" if group else "individual",
    }
    if group and ack.participant:
        status["participant_id"] = user_part(ack.participant)
    if state == "failed":
        status["errors"] = [{"code": 131000, "title": ack.error or "Message failed to send"}]
    return {**base_value(session), "statuses": [status]}


def presence_value(session: Session, event: Event, presence: PresenceEvent) -> dict[str, Any]:
    chat = presence.chat or event.chat
    group = is_group(chat)
    state = presence.presence.lower()
    entry: dict[str, Any] = {
        "from": user_part(presence.sender or chat),
        "chat_type": "group" if group else "individual",
        "status": state if state in PRESENCE_NAMES else "available",
        "timestamp": unix_seconds(presence.timestamp, event.event_ms),
    }
    if group:
        entry["group_id"] = chat
    if presence.last_seen:
        entry["last_seen"] = unix_seconds(presence.last_seen, event.event_ms)
    return {**base_value(session), "presences": [entry]}


def connection_value(
    session: Session, event: Event, change: ConnectedEvent | DisconnectedEvent
) -> dict[str, Any]:
    connection: dict[str, Any] = {
        "status": change.name,
        "timestamp": unix_seconds(change.timestamp, event.event_ms),
    }
    if isinstance(change, ConnectedEvent):
        connection["phone_number"] = user_part(change.jid or session.jid) or own_number(session)
        if change.push_name:
            connection["name"] = change.push_name
    else:
        connection["reason"] = change.reason or "unknown"
    return {**base_value(session), "connection": connection}


def qrcode_value(session: Session, event: Event, qr: QrEvent) -> dict[str, Any]:
    qrcode: dict[str, Any] = {"code": qr.qr_code, "timestamp": unix_seconds(qr.timestamp, event.event_ms)}
    if qr.image:
        qrcode["image"] = qr.image
    if qr.expires_at:
        qrcode["expires_at"] = qr.expires_at
    if qr.serial:
        qrcode["attempt"] = qr.serial
    return {**base_value(session), "qrcode": qrcode}


def call_value(session: Session, event: Event, call: CallEvent) -> dict[str, Any]:
    caller = call.caller or event.chat
    entry = {
        "id": as_text(call.call_id),
        "from": user_part(caller),
        "to": own_number(session),
        "event": call.status.lower(),
        "media": "video" if call.video else "voice",
        "direction": "USER_INITIATED",
        "is_group": call.is_group,
        "timestamp": unix_seconds(call.timestamp, event.event_ms),
    }
    contact = contact_entry(session, number=user_part(caller), name=as_text(call.push_name))
    return {**base_value(session), "contacts": [contact], "calls": [entry]}


def groups_value(session: Session, event: Event, change: GroupChange) -> dict[str, Any]:
    update: dict[str, Any] = {
        "group_id": change.group or event.chat,
        "type": _group_update_type(change),
        "timestamp": unix_seconds(change.timestamp, event.event_ms),
    }
    if change.name != "group_update":
        key = "added_participants" if change.name == "group_join" else "removed_participants"
        update[key] = [{"input": p, "wa_id": user_part(p)} for p in change.participants]
    if change.subject:
        update["subject"] = change.subject
    if change.by:
        update["initiated_by"] = user_part(change.by)
    update.update(_group_settings(change))
    return {**base_value(session), "groups": [update]}


def _group_update_type(change: GroupChange) -> str:
    """Participants joined or left; the subject changed (also a `group_update` naming nothing); or,
    Ponte's extension, anything else a `group_update` names."""
    if change.name != "group_update":
        return "group_participants_update"
    if not change.changed or list(change.changed) == ["subject"]:
        return "group_subject_update"
    return "group_settings_update"


def _group_settings(change: GroupChange) -> dict[str, Any]:
    """What a `group_update` changed beyond the subject, under the names of Ponte's extension."""
    if _group_update_type(change) != "group_settings_update":
        return {}
    extra: dict[str, Any] = {"changed": list(change.changed)}
    if change.description is not None:
        extra["description"] = change.description
    if change.announce is not None:
        extra["only_admins_can_send"] = change.announce
    if change.locked is not None:
        extra["only_admins_can_edit_info"] = change.locked
    return extra


def health_value(session: Session, event: Event, health: HealthEvent) -> dict[str, Any]:
    status = health.status.upper()
    value = {
        "can_send_message": status if status in HEALTH_NAMES else "LIMITED",
        "reason": health.reason,
        "timestamp": unix_seconds(health.timestamp, event.event_ms),
    }
    return {**base_value(session), "health": value}
