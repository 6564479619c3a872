"""Editing a sent text message: only the session's own text messages, within 15 minutes of sending.

The engine replaces the text on the platform; then the edit is reported like any engine event
(`message_edited`, `fromMe`), so the history and every event surface take it the same way as an edit
made on the other side (messaging.services.poll_edit_records)."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from messaging.engines.base import OutgoingEdit
from messaging.engines.events import MessageEditedEvent
from messaging.errors import (
    EditWindowExpired,
    MessageAlreadyDeleted,
    MessageNotEditable,
    NotMessageAuthor,
)
from messaging.models import Message, Session
from messaging.services.engine import engine_send, require_connected
from messaging.services.events import event_record
from messaging.services.messages import message_get

#: WhatsApp's own limit: a message can be edited for 15 minutes after it was sent.
EDIT_WINDOW = timedelta(minutes=15)
EDITABLE_TYPES = ("text",)


def _editable(session: Session, chat: str, message_id: str) -> Message:
    message = message_get(session, chat, message_id)
    if message.status == Message.Status.DELETED:
        raise MessageAlreadyDeleted("A deleted message cannot be edited.")
    if not message.from_me:
        raise NotMessageAuthor()
    if message.type not in EDITABLE_TYPES:
        raise MessageNotEditable(f"Only text messages can be edited; this one is {message.type!r}.")
    if message.timestamp < timezone.now() - EDIT_WINDOW:
        raise EditWindowExpired(extra={"windowSeconds": int(EDIT_WINDOW.total_seconds())})
    return message


def message_edit(*, session: Session, chat: str, message_id: str, text: str) -> Message:
    """Replace the text of an own text message sent less than 15 minutes ago; returns it edited. The
    engine first, in no transaction, then one short transaction records the edit: the events the
    engine's answer carries, or the `message_edited` event this service makes when it carries none."""
    require_connected(session)
    message = _editable(session, chat, message_id)
    sent = engine_send(session, OutgoingEdit(to=chat, message_id=message_id, text=text))
    events = sent.events or (
        MessageEditedEvent(
            message_id=message_id,
            chat_jid=chat,
            text=text,
            edited_at=timezone.now().isoformat(),
            from_me=True,
            sender=session.jid or None,
        ),
    )
    with transaction.atomic():
        for event in events:
            event_record(session, event)
    message.refresh_from_db()
    return message
