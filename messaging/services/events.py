"""What engines report (`on_event`), recorded on Ponte's models and handed to the event sink.

`engine_event_receive` is the callback every engine gets (messaging.services.engine.get_engine), in
web and worker processes as in engine processes (`run_engine`). It keeps the Session, Message and
Group rows in step with the engine, then calls the sinks named by `settings.MESSAGING_EVENT_SINK`
(default `webhooks.services.emit`, the outbox, then the Chatwoot mirror's sink), which write the event,
its deliveries and mirror jobs in the same transaction. A sink gets the typed event itself. The sinks
are resolved once at app start (MessagingConfig.ready), so nothing in `messaging` imports `webhooks`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone
from django.utils.module_loading import import_string

from core.rounds import one_round
from messaging.engines.events import (
    ConnectedEvent,
    DisconnectedEvent,
    EngineEvent,
    GroupChange,
    HealthEvent,
    MessageAckEvent,
    MessageEvent,
    QrEvent,
)
from messaging.models import Group, Message, Session
from messaging.services import chat_records
from messaging.services.directory import directory_record
from messaging.services.lids import lid_enrich
from messaging.services.poll_edit_records import message_edited_record, poll_record, poll_vote_record
from messaging.services.status_records import status_record

logger = logging.getLogger(__name__)

#: The sink's signature: `sink(session_id=..., event=<typed EngineEvent>, chat=..., event_ms=...)`
#: (`event_ms` None: the time the sink receives it).
EventSink = Callable[..., Any]
_sink: EventSink | None = None


def wire_sink() -> None:
    """Resolve `settings.MESSAGING_EVENT_SINK` (called once at app start, and when a test changes it)."""
    global _sink
    sinks = [import_string(path.strip()) for path in settings.MESSAGING_EVENT_SINK.split(",") if path.strip()]
    if len(sinks) == 1:
        _sink = sinks[0]
        return

    def _all(**event: Any) -> None:  # several sinks (the outbox, then the mirror), in order
        for sink in sinks:
            sink(**event)

    _sink = _all


@receiver(setting_changed)
def _setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "MESSAGING_EVENT_SINK":
        wire_sink()


_ACK_ORDER = {Message.Status.SENT: 0, Message.Status.DELIVERED: 1, Message.Status.READ: 2}


def _qr(session: Session, event: QrEvent) -> None:
    session.status = Session.Status.QR
    session.qr_code = event.qr_code
    session.qr_expires_at = datetime.fromisoformat(event.expires_at)
    session.save()


def _connected(session: Session, event: ConnectedEvent) -> None:
    session.status = Session.Status.CONNECTED
    session.status_reason = ""
    session.jid = event.jid
    session.phone = event.phone
    session.profile_name = session.profile_name or event.push_name[:25]
    session.qr_code = ""
    session.qr_expires_at = None
    session.connected_at = timezone.now()
    session.save()


def _disconnected(session: Session, event: DisconnectedEvent) -> None:
    session.status = Session.Status.DISCONNECTED
    session.status_reason = event.reason[:40]
    session.qr_code = ""
    session.qr_expires_at = None
    session.jid = ""
    session.connected_at = None
    session.save()


# What a `message` row keeps of its event (the rest is in the event itself).
_CONTENT_KEYS = (
    "text",
    "mediaUrl",
    "caption",
    "mimeType",
    "fileName",
    "sha256",
    "size",
    "voice",
    "location",
    "contacts",
    "displayName",
    "quoted",
    "buttons",
    "poll",
    "list",
    "listResponse",
    "linkPreview",
    "forwarded",
    "seconds",
    "waveform",
    "mentions",
)


def _message(session: Session, event: MessageEvent) -> None:
    chat = event.chat
    if event.type == "reaction" and event.reaction is not None:
        target = Message.objects.filter(
            session=session, chat=chat, message_id=event.reaction.message_id
        ).first()
        if target is not None:
            if event.reaction.emoji:
                target.reactions[event.sender] = event.reaction.emoji
            else:
                target.reactions.pop(event.sender, None)
            target.save(update_fields=["reactions"])
        return
    if event.type == "revoked":
        # Delete for everyone: a protocol message, not a message of the history; it marks its target.
        Message.objects.filter(
            session=session, chat=chat, message_id=event.revoked_message_id, deleted_at__isnull=True
        ).update(status=Message.Status.DELETED, deleted_at=timezone.now())
        return
    data = event.to_data()
    content = {k: v for k, v in data.items() if k in _CONTENT_KEYS and (v or k in ("text", "mediaUrl"))}
    timestamp = datetime.fromtimestamp(event.timestamp, tz=UTC) if event.timestamp else timezone.now()
    # One row per message id: a message already stored (a re-delivery, the API's own record of a send)
    # is kept as it is. One INSERT ... ON CONFLICT DO NOTHING, where get_or_create took a SELECT, a
    # savepoint, the INSERT and its release: four round trips on every inbound message.
    Message.objects.bulk_create(
        [
            Message(
                session=session,
                chat=chat,
                message_id=event.id,
                sender=event.sender,
                push_name=event.push_name[:100],
                from_me=event.from_me,
                # Own messages (sent through the API, which records them too, or from the phone) are outbound.
                direction=Message.Direction.OUTBOUND if event.from_me else Message.Direction.INBOUND,
                type=event.type,
                content=content,
                timestamp=timestamp,
            )
        ],
        ignore_conflicts=True,
    )
    if event.type == "poll":
        poll_record(session, event)


def _ack(session: Session, event: MessageAckEvent) -> str:
    """Returns the acked message's chat (an ack may name only the message). One UPDATE, only ever
    forward (sent → delivered → read; a failed or deleted message keeps its status); the chat is read
    only when the ack does not name it."""
    messages = Message.objects.filter(session=session, message_id=event.message_id)
    if event.chat:
        messages = messages.filter(chat=event.chat)
    chat = event.chat or messages.values_list("chat", flat=True).first() or ""
    rank = _ACK_ORDER.get(event.status)
    if rank is not None:
        behind = [status for status, order in _ACK_ORDER.items() if order < rank]
        messages.filter(status__in=behind).update(status=event.status)
    return chat


def _group(session: Session, event: GroupChange) -> None:
    """The group's row as the engine reports it: one upsert."""
    member_jids = {m.jid for m in event.members}
    group = Group(
        session=session,
        jid=event.group,
        subject=event.subject,
        subject_time=event.subject_time,
        creation=event.creation,
        owner=event.owner,
        participants=[{"jid": m.jid, "admin": m.admin} for m in event.members],
        is_member=bool(session.jid) and session.jid in member_jids,
    )
    fields = ["subject", "subject_time", "creation", "owner", "participants", "is_member", "updated_at"]
    Group.objects.bulk_create(
        [group], update_conflicts=True, unique_fields=["session", "jid"], update_fields=fields
    )


def _health(session: Session, event: HealthEvent) -> None:
    """The account can send (AVAILABLE) or not (LIMITED, BLOCKED: `reason` says why, e.g. banned)."""
    session.status_reason = "" if event.status == "AVAILABLE" else (event.reason or event.status.lower())[:40]
    session.save(update_fields=["status_reason", "updated_at"])


# Each records what the event changes; one may return the event's chat when the event does not name it.
_HANDLERS: dict[str, Callable[[Session, Any], str | None]] = {
    "qr": _qr,
    "connected": _connected,
    "disconnected": _disconnected,
    "message": _message,
    "message_ack": _ack,
    "group_join": _group,
    "group_leave": _group,
    "group_update": _group,
    "health": _health,
    "poll_vote": poll_vote_record,
    "message_edited": message_edited_record,
    "chat_pin": chat_records.chat_pin_record,
    "chat_mute": chat_records.chat_mute_record,
    "chat_unread": chat_records.chat_unread_record,
    "contact_block": chat_records.contact_block_record,
    "label_edit": chat_records.label_edit_record,
    "label_association": chat_records.label_association_record,
    "status": status_record,
}


# Their handlers save the Session row: they read it afresh, locked, whoever records them.
_SESSION_WRITERS = frozenset({"qr", "connected", "disconnected", "health"})


@transaction.atomic(savepoint=False)
def event_record(session: Session, event: EngineEvent, *, event_ms: int | None = None) -> None:
    """Record an event on the `session` the caller already holds (locked, or read for this request), in
    the caller's transaction: the events an engine call returned (a send's, a sandbox injection's), an
    edit the service made, an official channel's webhook items. One that saves the Session row is
    recorded on a fresh locked read instead, as if the engine had reported it (engine_event_receive)."""
    if event.name in _SESSION_WRITERS:
        engine_event_receive(str(session.pk), event, event_ms=event_ms)
        return
    _receive(session, event, event_ms)


def echo_emit(session: Session, event: MessageEvent) -> None:
    """Hand a send's own echo to the sinks, in the send's recording transaction, once the engine has
    answered; its row is the sending service's (its number in the chat, from the chat's counter row, is
    taken here, so that row is locked only until this short transaction ends, never across the engine's
    round trip)."""
    _emit(session, event, chat=None, event_ms=None)


def _emit(session: Session, event: EngineEvent, *, chat: str | None, event_ms: int | None) -> None:
    if _sink is None:
        wire_sink()
    # One round (core.rounds): the sinks' kept lookups check their versions in one round trip.
    with one_round():
        _sink(session_id=session.pk, event=event, chat=chat or event.chat, event_ms=event_ms or None)


# No savepoint of its own: an engine reports from inside its own transaction (the sandbox's methods, an
# official channel's webhook body) and no caller goes on after a failed report, so the savepoint only
# cost two round trips per event. A caller that caught the error and queried on would get Django's
# TransactionManagementError, never a half-recorded event.
@transaction.atomic(savepoint=False)
def engine_event_receive(session_id: str, event: EngineEvent, *, event_ms: int | None = None) -> None:
    """The `on_event` callback of every engine: record, then hand to the sink. `event_ms`: when the
    platform says it happened (official channels' webhooks), else the time the sink receives it."""
    try:  # get(), not first(): no ORDER BY to compile for a primary key
        session = Session.objects.select_for_update().get(pk=session_id)
    except Session.DoesNotExist:
        logger.warning("Engine reported %r for unknown session %s; ignored", event.name, session_id)
        return
    _receive(session, event, event_ms)


def _receive(session: Session, event: EngineEvent, event_ms: int | None) -> None:
    if isinstance(event, MessageEvent):
        event = lid_enrich(session, event)  # senderPn / senderLid as Ponte knows them
    handler = _HANDLERS.get(event.name)
    chat = handler(session, event) if handler is not None else None
    directory_record(session, event)
    _emit(session, event, chat=chat, event_ms=event_ms)
