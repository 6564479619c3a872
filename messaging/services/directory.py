"""The session's chats and contacts, kept in step with what it sends and receives.

Written in the transaction that records each message or group change (messaging.services.events,
messaging.services.messages), under the Session row lock every event takes, so one session's updates
never race; the lists (`GET /api/chats`, `GET /api/contacts`) then read these rows and never scan the
history. The same for every engine and official channel: they all report through the same events.

* A chat's `unreadCount` rises with each received message (not the session's own, not synced history)
  and falls to 0 when its messages are marked read (`POST /api/chats/read`); with the `readMessages`
  setting the engine reads them at once, so it stays 0.
* Contacts: the push name of whoever writes, the names of contact cards received, group participants.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db.models import F, Value
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from messaging.addressing import is_group, user_suffix
from messaging.engines.behaviour import behaviour_of
from messaging.engines.events import ChatArchiveEvent, EngineEvent, GroupChange, MessageEvent
from messaging.models import Chat, Contact, Group, Session

# Protocol messages: they change another message, not the conversation.
_NOT_CONVERSATION = ("reaction", "revoked")


def directory_record(session: Session, event: EngineEvent) -> None:
    """What `event` tells about the session's chats and contacts (called for every recorded event)."""
    if isinstance(event, MessageEvent):
        if event.type not in _NOT_CONVERSATION and event.chat:
            _message_seen(session, event)
    elif isinstance(event, GroupChange):
        _group_seen(session, event)
    elif isinstance(event, ChatArchiveEvent):
        _chat_touch(session, event.chat, archived=event.archived)


def directory_sent(session: Session, *, chat: str, at: datetime) -> None:
    """The session sent a message to `chat` (recorded by messaging.services.messages)."""
    _chat_touch(session, chat, at=at)


def directory_read(session: Session, *, chat: str) -> None:
    """The chat's received messages were marked read."""
    Chat.objects.filter(session=session, jid=chat).update(unread_count=0)


def _message_seen(session: Session, event: MessageEvent) -> None:
    at = datetime.fromtimestamp(event.timestamp, tz=UTC) if event.timestamp else timezone.now()
    received = not event.from_me and not event.is_history
    unread = 1 if received and not behaviour_of(str(session.pk)).read_messages else 0
    name = event.push_name[:100] if received and not is_group(event.chat) else ""
    _chat_touch(session, event.chat, at=at, unread=unread, name=name, chat_name=event.chat_name or "")
    if received and event.sender and event.push_name:
        Contact.objects.bulk_create(
            [Contact(session=session, jid=event.sender, push_name=event.push_name[:100])],
            update_conflicts=True,
            unique_fields=["session", "jid"],
            update_fields=["push_name", "updated_at"],
        )
    if event.contacts:
        _cards_seen(session, event)


def _cards_seen(session: Session, event: MessageEvent) -> None:
    cards = {}
    for card in event.contacts or ():
        digits = "".join(c for c in card.phone_number if c.isdigit())
        if digits and card.display_name:
            cards[f"{digits}@{user_suffix()}"] = card.display_name[:100]
    Contact.objects.bulk_create(
        [Contact(session=session, jid=jid, name=name) for jid, name in cards.items()],
        update_conflicts=True,
        unique_fields=["session", "jid"],
        update_fields=["name", "updated_at"],
    )


def _group_seen(session: Session, event: GroupChange) -> None:
    if event.group:
        _chat_touch(session, event.group, name=event.subject[:100])
        # What a `group_update` changed beyond the subject (the events handler wrote the rest).
        settings = {k: getattr(event, k) for k in ("description", "announce", "locked")}
        settings = {k: v for k, v in settings.items() if v is not None}
        if settings:
            Group.objects.filter(session=session, jid=event.group).update(**settings)
    own = session.jid
    Contact.objects.bulk_create(
        [Contact(session=session, jid=m.jid) for m in event.members if m.jid and m.jid != own],
        ignore_conflicts=True,
    )


def _chat_touch(
    session: Session,
    jid: str,
    *,
    at: datetime | None = None,
    unread: int = 0,
    name: str = "",
    chat_name: str = "",
    archived: bool | None = None,
) -> None:
    """One UPDATE of the chat's row, or its INSERT when it is new. `at` moves the last message time
    forward only (synced history may arrive late); a received message unarchives the chat."""
    changes: dict = {}
    if at is not None:
        changes["last_message_at"] = Greatest(Coalesce(F("last_message_at"), Value(at)), Value(at))
    if unread:
        changes["unread_count"] = F("unread_count") + unread
        changes["archived"] = False
    if name or chat_name:
        changes["name"] = name or chat_name
    if archived is not None:
        changes["archived"] = archived
    if changes:  # update() leaves auto_now alone; the list breaks ties of a second by this time
        changes["updated_at"] = timezone.now()
    if changes and Chat.objects.filter(session=session, jid=jid).update(**changes):
        return
    if not changes and Chat.objects.filter(session=session, jid=jid).exists():
        return
    if not (name or chat_name) and is_group(jid):
        name = Group.objects.filter(session=session, jid=jid).values_list("subject", flat=True).first() or ""
    Chat.objects.bulk_create(
        [
            Chat(
                session=session,
                jid=jid,
                name=(name or chat_name)[:100],
                is_group=is_group(jid),
                unread_count=unread,
                last_message_at=at,
                archived=bool(archived),
            )
        ],
        ignore_conflicts=True,
    )
