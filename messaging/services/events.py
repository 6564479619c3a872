"""What engines report (`on_event`), recorded on Ponte's models and emitted as events.

`engine_event_receive` is the callback every engine gets (messaging.engines.get_engine). It keeps the
Session, Message and Group rows in step with the engine, then calls `webhooks.services.emit`, which
writes the Event (and its deliveries) in the same transaction.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from messaging.models import Group, Message, Session
from webhooks.services import emit

logger = logging.getLogger(__name__)

EVENTS = (
    "message",
    "message_ack",
    "connected",
    "disconnected",
    "qr",
    "group_join",
    "group_leave",
    "call",
    "presence",
    "chat_archive",
)
_ACK_ORDER = {Message.Status.SENT: 0, Message.Status.DELIVERED: 1, Message.Status.READ: 2}


def _qr(session: Session, data: dict[str, Any]) -> str:
    session.status = Session.Status.QR
    session.qr_code = data["qrCode"]
    session.qr_expires_at = datetime.fromisoformat(data["expiresAt"])
    session.save()
    return ""


def _connected(session: Session, data: dict[str, Any]) -> str:
    session.status = Session.Status.CONNECTED
    session.jid = data.get("jid", "")
    session.phone = data.get("phone", "")
    session.profile_name = session.profile_name or data.get("pushName", "")[:25]
    session.qr_code = ""
    session.qr_expires_at = None
    session.connected_at = timezone.now()
    session.save()
    return ""


def _disconnected(session: Session, data: dict[str, Any]) -> str:
    session.status = Session.Status.DISCONNECTED
    session.qr_code = ""
    session.qr_expires_at = None
    session.jid = ""
    session.connected_at = None
    session.save()
    return ""


def _message(session: Session, data: dict[str, Any]) -> str:
    chat = data["chat"]
    if data.get("type") == "reaction":
        reaction = data.get("reaction") or {}
        target = Message.objects.filter(
            session=session, chat=chat, message_id=reaction.get("messageId")
        ).first()
        if target is not None:
            if reaction.get("emoji"):
                target.reactions[data["sender"]] = reaction["emoji"]
            else:
                target.reactions.pop(data["sender"], None)
            target.save(update_fields=["reactions"])
        return chat
    if data.get("type") == "revoked":
        # Delete for everyone: a protocol message, not a message of the history; it marks its target.
        Message.objects.filter(
            session=session, chat=chat, message_id=data.get("revokedMessageId"), deleted_at__isnull=True
        ).update(status=Message.Status.DELETED, deleted_at=timezone.now())
        return chat
    content = {
        k: v
        for k, v in data.items()
        if k
        in (
            "text",
            "mediaUrl",
            "caption",
            "mimeType",
            "location",
            "contacts",
            "displayName",
            "quoted",
            "buttons",
        )
    }
    from_me = bool(data.get("fromMe"))
    Message.objects.get_or_create(
        session=session,
        chat=chat,
        message_id=data["id"],
        defaults={
            "sender": data.get("sender", ""),
            "push_name": data.get("pushName", "")[:100],
            "from_me": from_me,
            # Own messages (sent through the API, which records them too, or from the phone) are outbound.
            "direction": Message.Direction.OUTBOUND if from_me else Message.Direction.INBOUND,
            "type": data.get("type", "text"),
            "content": content,
            "timestamp": datetime.fromtimestamp(data["timestamp"], tz=UTC)
            if data.get("timestamp")
            else timezone.now(),
        },
    )
    return chat


def _ack(session: Session, data: dict[str, Any]) -> str:
    messages = Message.objects.filter(session=session, message_id=data["messageId"])
    if data.get("chat"):
        messages = messages.filter(chat=data["chat"])
    chat = data.get("chat", "")
    for message in messages:
        chat = message.chat
        new = data.get("status", "")
        if new in _ACK_ORDER and _ACK_ORDER[new] > _ACK_ORDER.get(message.status, 99):
            message.status = new
            message.save(update_fields=["status"])
    return chat


def _group(session: Session, data: dict[str, Any]) -> str:
    members = data.get("members", [])
    member_jids = {m["jid"] for m in members}
    Group.objects.update_or_create(
        session=session,
        jid=data["group"],
        defaults={
            "subject": data.get("subject", ""),
            "subject_time": data.get("subjectTime", 0),
            "creation": data.get("creation", 0),
            "owner": data.get("owner", ""),
            "participants": members,
            "is_member": bool(session.jid) and session.jid in member_jids,
        },
    )
    return data["group"]


_HANDLERS = {
    "qr": _qr,
    "connected": _connected,
    "disconnected": _disconnected,
    "message": _message,
    "message_ack": _ack,
    "group_join": _group,
    "group_leave": _group,
    "presence": lambda session, data: data.get("from", ""),
    "call": lambda session, data: data.get("from", ""),
    "chat_archive": lambda session, data: data.get("chat", ""),
}


@transaction.atomic
def engine_event_receive(session_id: str, name: str, data: dict[str, Any]) -> None:
    """The `on_event` callback of every engine."""
    if name not in _HANDLERS:
        logger.warning("Engine reported unknown event %r for session %s; ignored", name, session_id)
        return
    session = Session.objects.select_for_update().filter(pk=session_id).first()
    if session is None:
        logger.warning("Engine reported %r for unknown session %s; ignored", name, session_id)
        return
    chat = _HANDLERS[name](session, data)
    emit(session_id=session.pk, name=name, data=data, chat=chat or "")
