"""Recording what an official channel's webhook reports: windows, read watermarks, then the events.

Makes no outside call: customers' names are looked up before (profiles.items_named, outside any
transaction) and read receipts are calls recorded here and made after commit (calls.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import transaction

from messaging.channels.behaviour import read_at_once
from messaging.channels.inbound import Inbound
from messaging.channels.models import ChannelConversation
from messaging.engines.events import EngineEvent, MessageAckEvent, MessageEvent
from messaging.models import Message, Session
from messaging.services.events import engine_event_receive


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


def _seen(session: Session, event: EngineEvent) -> bool:
    """A message Ponte already has: Meta re-posts a body it thinks failed; report each message once."""
    if not isinstance(event, MessageEvent) or event.type == "reaction" or not event.id:
        return False
    return Message.objects.filter(session=session, chat=event.chat, message_id=event.id).exists()


@transaction.atomic
def channel_events_receive(*, session: Session, items: list[Inbound]) -> int:
    """Record every item of one webhook body, in order; returns how many events were emitted."""
    emitted = 0
    for item in items:
        if _seen(session, item.event):
            continue
        event = item.event
        if item.customer_ms and event.chat:
            _window_open(session, event.chat, item.customer_ms)
        events = [event]
        if isinstance(event, MessageAckEvent):
            if not event.message_id:
                events = _read_up_to(session, event)
            elif event.status == "failed":
                Message.objects.filter(session=session, message_id=event.message_id).update(
                    status=Message.Status.FAILED
                )
        for one in events:
            engine_event_receive(str(session.pk), one, event_ms=item.event_ms or None)
            read_at_once(session, one)
            emitted += 1
    return emitted
