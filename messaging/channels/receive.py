"""Recording what an official channel's webhook reports: windows, read watermarks, then the events.

Makes no outside call: customers' names come from the cache (profiles.items_named), and the lookups of
names not known yet and read receipts are calls recorded here and made after commit (calls.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import transaction

from messaging.channels.behaviour import profile_ask, read_at_once
from messaging.channels.inbound import Inbound
from messaging.channels.models import ChannelConversation
from messaging.engines.behaviour import behaviour_of
from messaging.engines.events import EngineEvent, MessageAckEvent, MessageEvent
from messaging.models import Message, Session
from messaging.services.events import event_record


def _window_open(session: Session, chat: str, customer_ms: int) -> None:
    """The customer's last message time in the conversation (a late webhook never moves it back)."""
    at = datetime.fromtimestamp(customer_ms / 1000, tz=UTC)
    conversation, created = ChannelConversation.objects.select_for_update().get_or_create(
        session=session, chat=chat, defaults={"last_customer_at": at}
    )
    if not created and at > conversation.last_customer_at:
        conversation.last_customer_at = at
        conversation.save(update_fields=["last_customer_at"])


def _read_up_to(session: Session, ack: MessageAckEvent) -> list[MessageAckEvent]:
    """A Messenger read watermark → one `read` ack per message the page sent before it, not yet read."""
    until = datetime.fromtimestamp((ack.timestamp or 0) + 1, tz=UTC)
    messages = Message.objects.filter(
        session=session, chat=ack.chat, from_me=True, timestamp__lt=until
    ).exclude(status__in=[Message.Status.READ, Message.Status.FAILED, Message.Status.DELETED])
    return [
        MessageAckEvent(
            message_id=m.message_id,
            chat_jid=ack.chat,
            status="read",
            recipient=ack.recipient,
            timestamp=ack.timestamp,
        )
        for m in messages.order_by("timestamp", "id")
    ]


def _message_key(event: EngineEvent) -> tuple[str, str] | None:
    """(chat, id) of a message Ponte keeps once; None for what is reported each time (acks, reactions)."""
    if not isinstance(event, MessageEvent) or event.type == "reaction" or not event.id:
        return None
    return event.chat, event.id


def _unseen(session: Session, items: list[Inbound]) -> list[Inbound]:
    """The items less the messages Ponte already has (Meta re-posts a body it thinks failed; a row may
    be recorded twice) and less a message repeated among them: one query for all of them."""
    keys = [_message_key(item.event) for item in items]
    ids = {key[1] for key in keys if key is not None}
    have = set(
        Message.objects.filter(session=session, message_id__in=ids).values_list("chat", "message_id")
        if ids
        else ()
    )
    unseen = []
    for item, key in zip(items, keys, strict=True):
        if key is not None:
            if key in have:
                continue
            have.add(key)
        unseen.append(item)
    return unseen


def _windows_open(session: Session, items: list[Inbound]) -> None:
    """Each conversation's window from its latest customer message among the items: one row each."""
    latest: dict[str, int] = {}
    for item in items:
        chat = item.event.chat
        if item.customer_ms and chat:
            latest[chat] = max(latest.get(chat, 0), item.customer_ms)
    for chat, customer_ms in latest.items():
        _window_open(session, chat, customer_ms)


@transaction.atomic
def channel_events_receive(*, session: Session, items: list[Inbound]) -> int:
    """Record every item of one webhook body (or part of one), in order; returns how many events were
    emitted. Each message once, however often it arrives."""
    emitted = 0
    items = _unseen(session, items)
    if not items:
        return 0
    # The session's row locked once for the whole part, as every event would lock it in turn; its
    # settings read once.
    session = Session.objects.select_for_update().get(pk=session.pk)
    reads_messages = behaviour_of(str(session.pk)).read_messages
    _windows_open(session, items)
    asked: set[str] = set()
    for item in items:
        emitted += _record(session, item, reads_messages=reads_messages)
        profile_ask(session, item.event, asked)
    return emitted


def _record(session: Session, item: Inbound, *, reads_messages: bool) -> int:
    """One item: its events recorded and handed to the sinks, a read receipt asked for when the session
    reads messages at once; how many events."""
    event = item.event
    events = [event]
    if isinstance(event, MessageAckEvent):
        if not event.message_id:
            events = _read_up_to(session, event)
        elif event.status == "failed":
            Message.objects.filter(session=session, message_id=event.message_id).update(
                status=Message.Status.FAILED
            )
    for one in events:
        event_record(session, one, event_ms=item.event_ms or None)
        if reads_messages:
            read_at_once(session, one)
    return len(events)
