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
from functools import cache

from django.db import connection, transaction
from django.utils import timezone

from messaging.addressing import is_group, user_suffix
from messaging.engines.events import ChatArchiveEvent, EngineEvent, GroupChange, MessageEvent
from messaging.models import Chat, Contact, Group, LidMapping, Message, Session, SessionSettings
from messaging.services.lids import chat_ids

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
    _chat_upsert(session, chat, at=at, unread=False, name="", archived=None)


@transaction.atomic
def directory_named(session: Session, *, jid: str, name: str) -> None:
    """A direct chat's other side was named after its messages arrived (an official channel's customer
    profile): their received messages, contact and chat that have no name yet take it."""
    name = name[:100]
    Message.objects.filter(session=session, chat=jid, from_me=False, push_name="").update(push_name=name)
    Contact.objects.bulk_create(
        [Contact(session=session, jid=jid, push_name=name)],
        update_conflicts=True,
        unique_fields=["session", "jid"],
        update_fields=["push_name", "updated_at"],
    )
    Chat.objects.filter(session=session, jid=jid, name="").update(name=name)


def directory_read(session: Session, *, chat: str) -> None:
    """The chat's received messages were marked read (its row, whichever of a person's ids names it), which
    also clears a mark "unread"."""
    Chat.objects.filter(session=session, jid__in=chat_ids(session, chat)).update(
        unread_count=0, marked_unread=False
    )


def _message_seen(session: Session, event: MessageEvent) -> None:
    at = datetime.fromtimestamp(event.timestamp, tz=UTC) if event.timestamp else timezone.now()
    received = not event.from_me and not event.is_history
    name = event.push_name if received and not is_group(event.chat) else event.chat_name or ""
    _chat_upsert(session, event.chat, at=at, unread=received, name=name, archived=False if received else None)
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
    session: Session, jid: str, *, at: datetime | None = None, name: str = "", archived: bool | None = None
) -> None:
    _chat_upsert(session, jid, at=at, unread=False, name=name, archived=archived)


@cache
def _upsert_sql() -> str:
    """One statement whatever the chat's state: inserted, or updated in place. The unread count rises
    by one for a received message unless the session reads messages at once (its settings, read in the
    same statement); the last message time only moves forward (synced history may arrive late); an empty
    name or archived flag keeps the stored one. A person known by two ids (a `…@lid` and a phone JID,
    messaging.services.lids) has one chat: when only the other id has a row, that row is the one
    written (`_alias_sql`, in the same statement). Names come from the models' metadata only."""
    qn = connection.ops.quote_name
    chat, settings = Chat._meta, SessionSettings._meta

    def col(meta, name: str) -> str:
        return qn(meta.get_field(name).column)

    table = qn(chat.db_table)
    names = (
        "session",
        "jid",
        "name",
        "is_group",
        "unread_count",
        "last_message_at",
        "archived",
        "updated_at",
    )
    current = {n: f"{table}.{col(chat, n)}" for n in names}
    new = {n: f"excluded.{col(chat, n)}" for n in names}
    reads = f"{col(settings, 'read_messages')}"
    return (
        f"INSERT INTO {table} ({', '.join(col(chat, n) for n in names)}) "  # noqa: S608 (metadata names)
        f"SELECT %s, COALESCE(({_alias_sql()}), %s), %s, %s, "
        f"CASE WHEN %s AND NOT EXISTS (SELECT 1 FROM {qn(settings.db_table)} "
        f"WHERE {col(settings, 'session')} = %s AND {reads}) THEN 1 ELSE 0 END, %s, %s, %s WHERE 1 = 1 "
        f"ON CONFLICT ({col(chat, 'session')}, {col(chat, 'jid')}) DO UPDATE SET "
        f"{col(chat, 'unread_count')} = {current['unread_count']} + {new['unread_count']}, "
        f"{col(chat, 'last_message_at')} = CASE WHEN {current['last_message_at']} IS NULL "
        f"OR {current['last_message_at']} < {new['last_message_at']} THEN {new['last_message_at']} "
        f"ELSE {current['last_message_at']} END, "
        f"{col(chat, 'name')} = CASE WHEN {new['name']} <> '' THEN {new['name']} ELSE {current['name']} END, "
        f"{col(chat, 'archived')} = CASE WHEN %s THEN {new['archived']} ELSE {current['archived']} END, "
        f"{col(chat, 'updated_at')} = {new['updated_at']}"
    )


def _alias_sql() -> str:
    """The other id of the chat's person when only that id has a chat row (else no row: NULL).
    Parameters: the session, then the chat's JID four times."""
    qn = connection.ops.quote_name
    chat, lids = Chat._meta, LidMapping._meta

    def col(meta, name: str) -> str:
        return qn(meta.get_field(name).column)

    other = f"CASE WHEN m.{col(lids, 'lid')} = %s THEN m.{col(lids, 'pn')} ELSE m.{col(lids, 'lid')} END"
    rows = f"SELECT 1 FROM {qn(chat.db_table)} c WHERE c.{col(chat, 'session')} = m.{col(lids, 'session')}"  # noqa: S608
    return (
        f"SELECT {other} FROM {qn(lids.db_table)} m WHERE m.{col(lids, 'session')} = %s "  # noqa: S608
        f"AND (m.{col(lids, 'lid')} = %s OR m.{col(lids, 'pn')} = %s) "
        f"AND EXISTS ({rows} AND c.{col(chat, 'jid')} = {other}) "
        f"AND NOT EXISTS ({rows} AND c.{col(chat, 'jid')} = %s)"
    )


def _chat_upsert(
    session: Session, jid: str, *, at: datetime | None, unread: bool, name: str, archived: bool | None
) -> None:
    """The chat's row in one statement (the Session row lock orders one session's writes)."""
    key = Chat._meta.get_field("session").get_db_prep_value(session.pk, connection)
    stamp = Chat._meta.get_field("last_message_at").get_db_prep_value(at, connection) if at else None
    now = Chat._meta.get_field("updated_at").get_db_prep_value(timezone.now(), connection)
    # The alias subquery's: the jid (its CASE), the session, the jid twice, the jid (the second CASE),
    # the jid (its own row).
    alias = [jid, key, jid, jid, jid, jid] if not is_group(jid) else [jid, key, "", "", jid, jid]
    params = [
        key,
        *alias,
        jid,
        name[:100],
        is_group(jid),
        unread,
        key,
        stamp,
        bool(archived),
        now,
        archived is not None,
    ]
    with connection.cursor() as cursor:
        cursor.execute(_upsert_sql(), params)
