"""Sending, reacting to and deleting messages, with the plan's daily quota.

Every send takes one path (`message_send`), whatever the engine: the view has validated input, role and
allowed session (read once, with the key's account and plan); here the session must be connected, then
the quota is taken (one statement, messaging.services.quota), and only then is the engine asked. What a
channel needs beyond that is the engine's own business (official channels: the 24-hour window and
templates, messaging/channels/engine.py). The engine's echo of the sent message is held while the engine
works and handed to the event sink with the message row, which is written once, from what the engine
returns and what the API knows.

An API send runs in no request transaction (messaging.api.bases.SendView): the quota is committed before
the engine is asked (and given back if it fails), and the record is one short transaction after it
answers, so no row lock (the account's quota, the chat's event counter) is held across the engine's
round trip. Nested in a caller's transaction a send is one unit with it and takes a savepoint, so a
caller that catches its error can write on (the Chatwoot mirror records a refused send); `savepoint=False`
drops it where the caller's transaction fails as a whole on any error anyway. Official sessions keep
theirs, because a refused send still records something (a failed message, a disconnected session;
`ApplicationError.record`) after its own writes are rolled back.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import Forbidden, ValidationFailed
from core.transactions import transaction_open
from messaging.addressing import is_group
from messaging.engines.base import (
    Button,
    ContactCard,
    Engine,
    EngineOutsideWindow,
    Quoted,
    SentMessage,
)
from messaging.engines.events import MessageEvent
from messaging.errors import (
    DeletionWindowExpired,
    MessageAlreadyDeleted,
    MessageNotFound,
    OutsideCustomerWindow,
)
from messaging.models import Message, Session
from messaging.services.directory import directory_sent
from messaging.services.engine import engine_errors, engine_for, require_connected
from messaging.services.events import echo_record, reporting_for
from messaging.services.quota import quota_held, quota_take


@dataclass(frozen=True)
class QuotedInput:
    message_id: str
    participant: str = ""


@dataclass(frozen=True)
class Dispatched:
    """What one send produced, for its record: the quote, the engine's answer, the engine's echo of it
    when the engine reported one here (None from engines that report elsewhere, or not at all)."""

    quote: Quoted | None
    sent: SentMessage
    echo: MessageEvent | None


#: `(engine, session id, quote)` → what the engine sent.
EngineSend = Callable[[Engine, str, Quoted | None], SentMessage]
#: What the history keeps of a sent message, from what the send produced.
Content = Callable[[Dispatched], dict[str, Any]]


def _find(session: Session, chat: str, message_id: str) -> Message:
    message = Message.objects.filter(session=session, chat=chat, message_id=message_id).first()
    if message is None:
        raise MessageNotFound(f"Message {message_id!r} not found in chat {chat}.")
    return message


def message_quote(session: Session, chat: str, quoted: QuotedInput | None) -> Quoted | None:
    """The message a send replies to, from the history (404 when it is not there)."""
    if quoted is None:
        return None
    message = _find(session, chat, quoted.message_id)
    return Quoted(
        message_id=message.message_id,
        participant=quoted.participant or message.sender,
        text=str(message.content.get("text", ""))[:200],
    )


def message_send(
    *,
    session: Session,
    to: str,
    type_: str,
    send: EngineSend,
    content: Content,
    quoted: QuotedInput | None = None,
    savepoint: bool = True,
    also: Callable[[Message], None] | None = None,
) -> Message:
    """Send one message through the session's engine and record it (the one path of every send).
    `also` writes what a kind of message keeps beside its row (a poll's options), in the same
    transaction as the row.

    An engine reached over a network (an engine process, Meta's Graph API), on its own (an API send: the
    view opens no transaction): in three steps, none holding a row lock across the engine's round trip.
    The quota is taken and committed (given back if the engine fails), the engine is asked, then one
    short transaction records the message, its echo (whose number, from the chat's counter row, is taken
    only now) and the chat's row. Sends to one chat then wait on each other only for that transaction,
    never for the engine (docs/decisions/0013).

    A local engine (the sandbox: its call is work on this database), or a send nested in a caller's
    transaction (a job, the Chatwoot mirror), is one transaction: its own, or the caller's with a
    savepoint, none with `savepoint=False` (the caller's transaction fails as a whole on any error)."""
    require_connected(session)
    quote = message_quote(session, to, quoted)
    engine = engine_for(session)
    nested = transaction_open()
    if engine.local or nested:
        # Its own transaction when no caller holds one (`savepoint` only matters nested: in a test case's
        # transaction the send's own block is then a savepoint, as it is a BEGIN in production).
        with transaction.atomic(savepoint=savepoint or session.official or not nested):
            quota_take(account=session.account)
            return _recorded(session, _dispatched(session, engine, send, quote), type_, content, also)
    with quota_held(account=session.account):
        done = _dispatched(session, engine, send, quote)
    with transaction.atomic():
        return _recorded(session, done, type_, content, also)


def _dispatched(session: Session, engine: Engine, send: EngineSend, quote: Quoted | None) -> Dispatched:
    """The engine's answer, and its echo of the sent message when it reported one here (held, not yet
    recorded: messaging.services.events.Reporting)."""
    with engine_errors(), reporting_for(session, send=True) as reporting:
        sent = send(engine, str(session.pk), quote)
    return Dispatched(quote, sent, reporting.echo)


def _recorded(
    session: Session,
    done: Dispatched,
    type_: str,
    content: Content,
    also: Callable[[Message], None] | None,
) -> Message:
    """The send's record, in the caller's transaction: the message row (and `also`), the echo handed to
    the sinks (an echo that turned out to be another message's is recorded as it came), the chat's row."""
    echo = done.echo
    if echo is not None and echo.id != done.sent.message_id:
        echo_record(session, echo, own=False)
        echo = None
    message = _record(session, done.sent, type_, content(Dispatched(done.quote, done.sent, echo)))
    if also is not None:
        also(message)
    if echo is not None:
        echo_record(session, echo, own=True)
    directory_sent(session, chat=message.chat, at=message.timestamp)
    return message


def _record(session: Session, sent: SentMessage, type_: str, content: dict[str, Any]) -> Message:
    """The sent message in the history, in one statement: inserted, or, when an engine process already
    stored its echo, completed with what the API knows (the content as sent, the engine's status)."""
    if sent.template is not None:
        type_ = "template"
        template = sent.template
        content = {
            "text": content.get("text", ""),
            "template": {
                "name": template.name,
                "language": template.language,
                "parameters": list(template.parameters),
            },
        }
    message = Message(
        session=session,
        chat=sent.chat,
        message_id=sent.message_id,
        sender=session.jid,
        push_name=session.profile_name,
        from_me=True,
        direction=Message.Direction.OUTBOUND,
        type=type_,
        content=content,
        status=sent.status if sent.status in Message.Status.values else Message.Status.SENT,
        timestamp=sent.timestamp,
    )
    Message.objects.bulk_create(
        [message],
        update_conflicts=True,
        unique_fields=["session", "chat", "message_id"],
        update_fields=[
            "sender",
            "push_name",
            "from_me",
            "direction",
            "type",
            "content",
            "status",
            "timestamp",
        ],
    )
    return message


def _failed_outside_window(
    session: Session, to: str, text: str, exc: EngineOutsideWindow
) -> OutsideCustomerWindow:
    """The channel refused the text before sending it (24-hour window, no template fits): 409, and the
    text recorded as a failed message once the send's own writes are rolled back."""
    message_id = f"failed-{uuid.uuid4().hex[:20]}"
    last = exc.last_customer_at
    error = OutsideCustomerWindow(
        str(exc), extra={"messageId": message_id, "lastCustomerMessageAt": last.isoformat() if last else None}
    )
    error.record = lambda: Message.objects.create(
        session_id=session.pk,
        chat=to,
        message_id=message_id,
        from_me=True,
        direction=Message.Direction.OUTBOUND,
        type="text",
        content={"text": text, "error": OutsideCustomerWindow.code},
        status=Message.Status.FAILED,
    )
    return error


def message_send_text(
    *,
    session: Session,
    to: str,
    text: str,
    quoted: QuotedInput | None = None,
    mentions: tuple[str, ...] = (),
    savepoint: bool = True,
) -> Message:
    """`mentions`: JIDs the text mentions (messaging.services.mentions resolved them)."""

    def send(engine: Engine, session_id: str, quote: Quoted | None) -> SentMessage:
        try:
            if mentions:  # engines are asked with it only when it says something
                return engine.send_text(session_id, to, text, quote, mentions=mentions)
            return engine.send_text(session_id, to, text, quote)
        except EngineOutsideWindow as exc:
            if not exc.unsent:
                raise
            raise _failed_outside_window(session, to, text, exc) from exc

    def content(done: Dispatched) -> dict[str, Any]:
        quote = {"quoted": {"messageId": done.quote.message_id}} if done.quote else {}
        return {"text": text, **quote, **({"mentions": list(mentions)} if mentions else {})}

    return message_send(
        session=session, to=to, type_="text", send=send, content=content, quoted=quoted, savepoint=savepoint
    )


def message_send_contact(*, session: Session, to: str, card: ContactCard, savepoint: bool = True) -> Message:
    return message_send(
        session=session,
        to=to,
        type_="contact",
        send=lambda engine, session_id, _: engine.send_contact(session_id, to, card),
        content=lambda _: {"contacts": [card.__dict__], "vcard": card.vcard()},
        savepoint=savepoint,
    )


def message_send_contacts(
    *, session: Session, to: str, display_name: str, cards: list[ContactCard], savepoint: bool = True
) -> Message:
    return message_send(
        session=session,
        to=to,
        type_="contacts",
        send=lambda engine, session_id, _: engine.send_contacts(session_id, to, display_name, cards),
        content=lambda _: {"displayName": display_name, "contacts": [c.__dict__ for c in cards]},
        savepoint=savepoint,
    )


def message_send_location(
    *,
    session: Session,
    to: str,
    latitude: float,
    longitude: float,
    name: str = "",
    address: str = "",
    quoted: QuotedInput | None = None,
    savepoint: bool = True,
) -> Message:
    location = {"latitude": latitude, "longitude": longitude, "name": name, "address": address}
    return message_send(
        session=session,
        to=to,
        type_="location",
        send=lambda engine, session_id, quote: engine.send_location(
            session_id, to, latitude, longitude, name, address, quote
        ),
        content=lambda _: {"location": location},
        quoted=quoted,
        savepoint=savepoint,
    )


def message_send_buttons(
    *, session: Session, to: str, text: str, buttons: list[Button], footer: str = "", savepoint: bool = True
) -> Message:
    return message_send(
        session=session,
        to=to,
        type_="buttons",
        send=lambda engine, session_id, _: engine.send_buttons(session_id, to, text, buttons, footer),
        content=lambda _: {"text": text, "footer": footer, "buttons": [b.__dict__ for b in buttons]},
        savepoint=savepoint,
    )


def message_react(*, session: Session, chat: str, message_id: str, emoji: str) -> str | None:
    """React with `emoji` ("" removes the session's reaction). Returns the reaction now in place.
    In no transaction: the engine is called first (the Graph API on official channels), then the
    message's reactions saved in one statement."""
    require_connected(session)
    message = _find(session, chat, message_id)
    if message.status == Message.Status.DELETED:
        raise MessageAlreadyDeleted("A deleted message cannot be reacted to.")
    with engine_errors():
        engine_for(session).send_reaction(
            str(session.pk), chat, message.message_id, message.from_me, message.sender, emoji
        )
    if emoji:
        message.reactions[session.jid] = emoji
    else:
        message.reactions.pop(session.jid, None)
    message.save(update_fields=["reactions"])
    return emoji or None


@transaction.atomic
def message_delete(*, session: Session, chat: str, message_id: str, from_me: bool) -> Message:
    """Delete for everyone: own messages, or others' in a group when the session is a group admin,
    within MESSAGING_DELETE_WINDOW_SECONDS of sending."""
    require_connected(session)
    message = _find(session, chat, message_id)
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
    with engine_errors():
        engine_for(session).delete_message(str(session.pk), chat, message_id, from_me, message.sender)
    message.status = Message.Status.DELETED
    message.deleted_at = timezone.now()
    message.save(update_fields=["status", "deleted_at"])
    return message
