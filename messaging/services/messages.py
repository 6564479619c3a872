"""Sending, reacting to and deleting messages, with the plan's daily quota.

Order of every operation: the view has validated input, role and allowed session; here the session
must be connected, then the quota is checked, and only then is the engine asked. The sent message is
recorded (history, quota count) from what the engine returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import Account
from config.errors import (
    DeletionWindowExpired,
    Forbidden,
    MessageAlreadyDeleted,
    MessageNotFound,
    RateLimited,
    ValidationFailed,
)
from messaging.addressing import is_group
from messaging.engines.base import Button, ContactCard, Quoted, SentMessage
from messaging.models import DailyMessageCount, Message, Session
from messaging.services.engine import engine_errors, engine_for, require_connected
from messaging.services.official import official_channels


@dataclass(frozen=True)
class QuotedInput:
    message_id: str
    participant: str = ""


def quota_day_bounds(now: datetime) -> tuple[datetime, datetime]:
    """Start of today and of tomorrow in the quota's time zone."""
    local = now.astimezone(ZoneInfo(settings.MESSAGING_QUOTA_TIME_ZONE))
    start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    # Aware arithmetic with a ZoneInfo is wall-clock arithmetic: this is the next local midnight.
    return start, start + timedelta(days=1)


def messages_sent_today(account: Account, now: datetime | None = None) -> int:
    start, _ = quota_day_bounds(now or timezone.now())
    row = DailyMessageCount.objects.filter(account=account, day=start.date()).first()
    return row.count if row else 0


def quota_take(*, account: Account) -> None:
    """Count one message against the plan's messages/day (per account, calendar day in the quota
    time zone); 429 with retryAfter until midnight when the quota is used up.

    The day's row is locked and incremented in the caller's transaction: concurrent sends of one
    account are serialised, and a send that fails later rolls its count back with it.
    """
    now = timezone.now()
    start, tomorrow = quota_day_bounds(now)
    DailyMessageCount.objects.get_or_create(account_id=account.pk, day=start.date())
    row = DailyMessageCount.objects.select_for_update().get(account_id=account.pk, day=start.date())
    limit = account.plan.messages_per_day
    if limit is not None and row.count >= limit:
        raise RateLimited(
            f"The {account.plan.name} plan allows {limit} messages a day; the quota resets at midnight "
            f"({settings.MESSAGING_QUOTA_TIME_ZONE}).",
            retry_after=int((tomorrow - now).total_seconds()) + 1,
            extra={"limit": limit},
        )
    DailyMessageCount.objects.filter(pk=row.pk).update(count=F("count") + 1)


def _find(session: Session, chat: str, message_id: str) -> Message:
    message = Message.objects.filter(session=session, chat=chat, message_id=message_id).first()
    if message is None:
        raise MessageNotFound(f"Message {message_id!r} not found in chat {chat}.")
    return message


def _quoted(session: Session, chat: str, quoted: QuotedInput | None) -> Quoted | None:
    if quoted is None:
        return None
    message = _find(session, chat, quoted.message_id)
    return Quoted(
        message_id=message.message_id,
        participant=quoted.participant or message.sender,
        text=str(message.content.get("text", ""))[:200],
    )


def _prepare(session: Session) -> None:
    require_connected(session)
    quota_take(account=session.account)


def _record(session: Session, sent: SentMessage, type_: str, content: dict) -> Message:
    """The sent message in the history. Engines echo own messages as `fromMe` `message` events
    (engine_event_receive may already have stored the row, in this transaction): one row per message
    id, completed with what the API knows (the content as sent, the engine's status)."""
    message, _ = Message.objects.update_or_create(
        session=session,
        chat=sent.chat,
        message_id=sent.message_id,
        defaults={
            "sender": session.jid,
            "push_name": session.profile_name,
            "from_me": True,
            "direction": Message.Direction.OUTBOUND,
            "type": type_,
            "content": content,
            "status": sent.status if sent.status in Message.Status.values else Message.Status.SENT,
            "timestamp": sent.timestamp,
        },
    )
    return message


@transaction.atomic
def message_send_text(*, session: Session, to: str, text: str, quoted: QuotedInput | None = None) -> Message:
    if session.official:  # the 24-hour window and templates
        return official_channels().send_text(session=session, to=to, text=text, quoted=quoted)
    _prepare(session)
    quote = _quoted(session, to, quoted)
    with engine_errors():
        sent = engine_for(session).send_text(str(session.pk), to, text, quote)
    content = {"text": text, **({"quoted": {"messageId": quote.message_id}} if quote else {})}
    return _record(session, sent, "text", content)


@transaction.atomic
def message_send_contact(*, session: Session, to: str, card: ContactCard) -> Message:
    _prepare(session)
    with engine_errors():
        sent = engine_for(session).send_contact(str(session.pk), to, card)
    return _record(session, sent, "contact", {"contacts": [card.__dict__], "vcard": card.vcard()})


@transaction.atomic
def message_send_contacts(
    *, session: Session, to: str, display_name: str, cards: list[ContactCard]
) -> Message:
    _prepare(session)
    with engine_errors():
        sent = engine_for(session).send_contacts(str(session.pk), to, display_name, cards)
    return _record(
        session, sent, "contacts", {"displayName": display_name, "contacts": [c.__dict__ for c in cards]}
    )


@transaction.atomic
def message_send_location(
    *,
    session: Session,
    to: str,
    latitude: float,
    longitude: float,
    name: str = "",
    address: str = "",
    quoted: QuotedInput | None = None,
) -> Message:
    _prepare(session)
    quote = _quoted(session, to, quoted)
    with engine_errors():
        sent = engine_for(session).send_location(
            str(session.pk), to, latitude, longitude, name, address, quote
        )
    location = {"latitude": latitude, "longitude": longitude, "name": name, "address": address}
    return _record(session, sent, "location", {"location": location})


@transaction.atomic
def message_send_buttons(
    *, session: Session, to: str, text: str, buttons: list[Button], footer: str = ""
) -> Message:
    _prepare(session)
    with engine_errors():
        sent = engine_for(session).send_buttons(str(session.pk), to, text, buttons, footer)
    content = {"text": text, "footer": footer, "buttons": [b.__dict__ for b in buttons]}
    return _record(session, sent, "buttons", content)


@transaction.atomic
def message_react(*, session: Session, chat: str, message_id: str, emoji: str) -> str | None:
    """React with `emoji` ("" removes the session's reaction). Returns the reaction now in place."""
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
