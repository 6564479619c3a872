"""Sending, reacting to and deleting messages, with the plan's daily quota.

Every send takes one path (`message_send`), whatever the engine: the view has validated input, role and
allowed session (read once, with the key's account and plan); here the session must be connected, then
the quota is taken (one statement, messaging.services.quota), and only then is the engine asked. What a
channel needs beyond that is the engine's own business (official channels: the 24-hour window and
templates, messaging/channels/engine.py). The engine takes the message as a value (an `Outgoing`) and
answers with its id and the events the send produced (the echo of the sent message), which are handed to
the event sink with the message row, written once from what the engine returns and what the API knows
(docs/decisions/0028).

An API send runs in no request transaction (messaging.api.bases.SendView): the quota is committed before
the engine is asked (and given back if it fails), and the record is one short transaction after it
answers, so no row lock (the account's quota, the chat's event counter) is held across the engine's
round trip. Nested in a caller's transaction a send is one unit with it and takes a savepoint, so a
caller that catches its error can write on (the Chatwoot mirror records a refused send); `savepoint=False`
drops it where the caller's transaction fails as a whole on any error anyway. Official sessions keep
theirs, because a refused send still records something (a failed message, a disconnected session) after
its own writes are rolled back, which the caller's transaction must still be able to take.
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from core.compiled import CompiledUpsert
from core.transactions import transaction_open
from messaging.engines.base import (
    Button,
    ContactCard,
    Engine,
    EngineOutsideWindow,
    Outgoing,
    OutgoingButtons,
    OutgoingContact,
    OutgoingContacts,
    OutgoingLocation,
    OutgoingText,
    Quoted,
    Sent,
)
from messaging.engines.events import MessageEvent
from messaging.errors import (
    MessageNotFound,
    OutsideCustomerWindow,
)
from messaging.models import Message, Session
from messaging.services.chat_state import contact_blocked_check
from messaging.services.directory import directory_sent
from messaging.services.engine import engine_errors, engine_for, require_connected
from messaging.services.events import echo_emit, event_record
from messaging.services.newsletters import newsletter_send_check
from messaging.services.poll_edit_records import poll_keep
from messaging.services.quota import quota_held, quota_take


@dataclass(frozen=True)
class QuotedInput:
    message_id: str
    participant: str = ""

    def as_quoted(self) -> Quoted:
        """The quote as the send takes it: completed from the history by message_send."""
        return Quoted(message_id=self.message_id, participant=self.participant)


def message_get(session: Session, chat: str, message_id: str) -> Message:
    """A message of the session's chat, or 404 MESSAGE_NOT_FOUND."""
    message = Message.objects.filter(session=session, chat=chat, message_id=message_id).first()
    if message is None:
        raise MessageNotFound(f"Message {message_id!r} not found in chat {chat}.")
    return message


def message_quote(session: Session, chat: str, quoted: Quoted | QuotedInput | None) -> Quoted | None:
    """The message a send replies to, from the history (404 when it is not there)."""
    if quoted is None:
        return None
    message = message_get(session, chat, quoted.message_id)
    return Quoted(
        message_id=message.message_id,
        participant=quoted.participant or message.sender,
        text=str(message.content.get("text", ""))[:200],
    )


def _quoted(outgoing: Outgoing, session: Session) -> Outgoing:
    """`outgoing` with its quote (if it has one) completed from the history: author and text."""
    quote = getattr(outgoing, "quoted", None)
    if quote is None:
        return outgoing
    return dataclasses.replace(outgoing, quoted=message_quote(session, outgoing.to, quote))  # type: ignore[call-arg]


def message_send(*, session: Session, outgoing: Outgoing, savepoint: bool = True) -> Message:
    """Send one message through the session's engine and record it (the one path of every send): the
    engine answers with the message's id and the events the send produced (messaging.engines.outgoing),
    and this records the message's row, hands the events to the sinks and moves the chat's row.

    An engine reached over a network (an engine process, Meta's Graph API), on its own (an API send: the
    view opens no transaction): in three steps, none holding a row lock across the engine's round trip.
    The quota is taken and committed (given back if the engine fails), the engine is asked, then one
    short transaction records the message, its echo (whose number, from the chat's counter row, is taken
    only now) and the chat's row. Sends to one chat then wait on each other only for that transaction,
    never for the engine (docs/decisions/0013).

    A local engine (the sandbox: its call is work on this database), or a send nested in a caller's
    transaction (a job, the Chatwoot mirror), is one transaction: its own, or the caller's with a
    savepoint, none with `savepoint=False` (the caller's transaction fails as a whole on any error).

    A text the channel refused to send (the 24-hour window, no template fits) is recorded as a failed
    message once the send's own writes are rolled back, in a transaction of its own, and the 409 raised."""
    require_connected(session)
    contact_blocked_check(session, outgoing.to)
    newsletter_send_check(session, outgoing.to)  # a channel takes posts from its owner only
    outgoing = _quoted(outgoing, session)
    try:
        return _send(session, engine_for(session), outgoing, savepoint)
    except OutsideCustomerWindow as error:
        if error.unsent_id:
            _failed_record(session, outgoing, error.unsent_id)
        raise


def _send(session: Session, engine: Engine, outgoing: Outgoing, savepoint: bool) -> Message:
    nested = transaction_open()
    if engine.local or nested:
        # Its own transaction when no caller holds one (`savepoint` only matters nested: in a test case's
        # transaction the send's own block is then a savepoint, as it is a BEGIN in production).
        with transaction.atomic(savepoint=savepoint or session.official or not nested):
            quota_take(account=session.account)
            return _recorded(session, outgoing, _dispatched(session, engine, outgoing))
    with quota_held(account=session.account):
        sent = _dispatched(session, engine, outgoing)
    with transaction.atomic():
        return _recorded(session, outgoing, sent)


def _dispatched(session: Session, engine: Engine, outgoing: Outgoing) -> Sent:
    """The engine's answer; a text the channel would not send outside the window becomes the 409 that
    names the failed message message_send records."""
    with engine_errors():
        try:
            return engine.send(str(session.pk), outgoing)
        except EngineOutsideWindow as exc:
            if not exc.unsent:
                raise
            raise _outside_window(exc) from exc


def _own_echo(sent: Sent) -> MessageEvent | None:
    """The sent message's own echo among the events the send produced, if the engine gave one."""
    for event in sent.events:
        if isinstance(event, MessageEvent) and event.from_me and event.id == sent.message_id:
            return event
    return None


def _recorded(session: Session, outgoing: Outgoing, sent: Sent) -> Message:
    """The send's record, in the caller's transaction: any other event the send produced, the message
    row (and what its kind keeps beside it), the echo handed to the sinks, the chat's row."""
    echo = _own_echo(sent)
    for event in sent.events:
        if event is not echo:
            event_record(session, event)
    message = _record(
        session, sent, outgoing.row_type or outgoing.kind, _content(session, outgoing, sent, echo)
    )
    poll_keep(session, message, outgoing)  # with the message's row, so no vote finds the poll missing
    if echo is not None:
        echo_emit(session, echo)
    directory_sent(session, chat=message.chat, at=message.timestamp)
    return message


def _content(session: Session, outgoing: Outgoing, sent: Sent, echo: MessageEvent | None) -> dict[str, Any]:
    """What the history keeps: the message as sent, and for media the link to the copy the engine
    stored, from its echo (read from the history when an engine process stored the echo itself)."""
    content = outgoing.history()
    if outgoing.carries_media:
        if echo is not None:
            link = echo.media_url or ""
        else:
            stored = Message.objects.filter(
                session=session, chat=sent.chat, message_id=sent.message_id
            ).first()
            link = str(stored.content.get("mediaUrl") or "") if stored is not None else ""
        if link:
            content["mediaUrl"] = link
    return content


# What the API's record completes of a row an engine process stored from the echo.
_COMPLETED = ("sender", "push_name", "from_me", "direction", "type", "content", "status", "timestamp")
# Written on every send: compiled once (core.compiled, docs/decisions/0037).
_MESSAGE_UPSERT = CompiledUpsert(
    Message, unique_fields=["session", "chat", "message_id"], update_fields=list(_COMPLETED)
)


def _record(session: Session, sent: Sent, type_: str, content: dict[str, Any]) -> Message:
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
    return _MESSAGE_UPSERT.save(message)


def _outside_window(exc: EngineOutsideWindow) -> OutsideCustomerWindow:
    """The channel refused the text before sending it (24-hour window, no template fits): 409 naming the
    failed message message_send records."""
    message_id = f"failed-{uuid.uuid4().hex[:20]}"
    last = exc.last_customer_at
    error = OutsideCustomerWindow(
        str(exc), extra={"messageId": message_id, "lastCustomerMessageAt": last.isoformat() if last else None}
    )
    error.unsent_id = message_id
    return error


@transaction.atomic
def _failed_record(session: Session, outgoing: Outgoing, message_id: str) -> None:
    """The text the channel refused, in the history as a failed message: its own transaction, after the
    send's writes were rolled back (the request's own writes, if it has any, roll back too)."""
    Message.objects.create(
        session_id=session.pk,
        chat=outgoing.to,
        message_id=message_id,
        from_me=True,
        direction=Message.Direction.OUTBOUND,
        type="text",
        content={"text": getattr(outgoing, "text", ""), "error": OutsideCustomerWindow.code},
        status=Message.Status.FAILED,
    )


# The public API other code calls: one function per kind, building its Outgoing.


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
    outgoing = OutgoingText(
        to=to, text=text, quoted=quoted.as_quoted() if quoted else None, mentions=mentions
    )
    return message_send(session=session, outgoing=outgoing, savepoint=savepoint)


def message_send_contact(*, session: Session, to: str, card: ContactCard, savepoint: bool = True) -> Message:
    return message_send(session=session, outgoing=OutgoingContact(to=to, card=card), savepoint=savepoint)


def message_send_contacts(
    *, session: Session, to: str, display_name: str, cards: list[ContactCard], savepoint: bool = True
) -> Message:
    outgoing = OutgoingContacts(to=to, display_name=display_name, cards=tuple(cards))
    return message_send(session=session, outgoing=outgoing, savepoint=savepoint)


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
    outgoing = OutgoingLocation(
        to=to,
        latitude=latitude,
        longitude=longitude,
        name=name,
        address=address,
        quoted=quoted.as_quoted() if quoted else None,
    )
    return message_send(session=session, outgoing=outgoing, savepoint=savepoint)


def message_send_buttons(
    *, session: Session, to: str, text: str, buttons: list[Button], footer: str = "", savepoint: bool = True
) -> Message:
    outgoing = OutgoingButtons(to=to, text=text, buttons=tuple(buttons), footer=footer)
    return message_send(session=session, outgoing=outgoing, savepoint=savepoint)
