"""What is done to a message already sent: a reaction, a deletion for everyone (an edit: messaging.
services.edits). The engine first, in no transaction when it is reached over a network (net.guard), then
one short transaction: the message's row and the events the engine's answer carries."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import Forbidden, ValidationFailed
from messaging.addressing import is_group
from messaging.engines.base import Sent
from messaging.engines.outgoing import OutgoingDelete, OutgoingReaction
from messaging.errors import DeletionWindowExpired, MessageAlreadyDeleted
from messaging.models import Message, Session
from messaging.services.chat_state import contact_blocked_check
from messaging.services.engine import engine_send, require_connected
from messaging.services.events import event_record
from messaging.services.messages import message_get


def message_react(*, session: Session, chat: str, message_id: str, emoji: str) -> str | None:
    """React with `emoji` ("" removes the session's reaction). Returns the reaction now in place.
    In no transaction: the engine is called first (the Graph API on official channels), then the
    message's reactions saved in one statement, with what the engine's answer carries (its echo)."""
    require_connected(session)
    contact_blocked_check(session, chat)
    message = message_get(session, chat, message_id)
    if message.status == Message.Status.DELETED:
        raise MessageAlreadyDeleted("A deleted message cannot be reacted to.")
    reaction = OutgoingReaction(
        to=chat, message_id=message.message_id, from_me=message.from_me, sender=message.sender, emoji=emoji
    )
    sent = engine_send(session, reaction)
    if emoji:
        message.reactions[session.jid] = emoji
    else:
        message.reactions.pop(session.jid, None)
    with transaction.atomic():
        message.save(update_fields=["reactions"])
        _events_record(session, sent)
    return emoji or None


def _events_record(session: Session, sent: Sent) -> None:
    for event in sent.events:
        event_record(session, event)


def _deletable(session: Session, chat: str, message_id: str, from_me: bool) -> Message:
    message = message_get(session, chat, message_id)
    if message.status == Message.Status.DELETED:
        raise MessageAlreadyDeleted()
    if message.from_me != from_me:
        raise ValidationFailed(
            f"fromMe is {str(from_me).lower()} but message {message_id!r} was "
            + ("sent by this session." if message.from_me else "sent by another participant.")
        )
    if not from_me and not is_group(chat):
        raise Forbidden("Only your own messages can be deleted in a direct chat.")
    window = timedelta(seconds=settings.MESSAGING_DELETE_WINDOW_SECONDS)
    if message.timestamp < timezone.now() - window:
        raise DeletionWindowExpired(
            f"Messages can be deleted for everyone only within {settings.MESSAGING_DELETE_WINDOW_SECONDS} "
            "seconds of sending.",
            extra={"windowSeconds": settings.MESSAGING_DELETE_WINDOW_SECONDS},
        )
    return message


def message_delete(*, session: Session, chat: str, message_id: str, from_me: bool) -> Message:
    """Delete for everyone: own messages, or others' in a group when the session is a group admin,
    within MESSAGING_DELETE_WINDOW_SECONDS of sending. The engine first, in no transaction (an engine
    process answers over the bus), then one short transaction: the message marked deleted, and the
    events the revocation produced (its own `revoked` message) recorded and handed to the sinks."""
    require_connected(session)
    message = _deletable(session, chat, message_id, from_me)
    sent = engine_send(
        session, OutgoingDelete(to=chat, message_id=message_id, from_me=from_me, sender=message.sender)
    )
    with transaction.atomic():
        message.status = Message.Status.DELETED
        message.deleted_at = timezone.now()
        message.save(update_fields=["status", "deleted_at"])
        _events_record(session, sent)
    return message
