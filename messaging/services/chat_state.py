"""Chat and contact actions (issue 41): archive, pin, mute, mark unread, block; and the records of the
events that report them, from the API or from the phone.

An action asks the session's engine, which returns the events describing the new state
(messaging.engines.chat_contract); they are then recorded and emitted like every event an engine call
returns (`event_record`), in one short transaction of their own. No transaction is held across the
engine's call: for official channels it is a Graph API request (net.guard), for engine processes a
round trip over Redis. A chat action on a chat Ponte has not seen yet creates its row.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import QuerySet

from messaging.addressing import is_group
from messaging.engines.events import EngineEvent
from messaging.errors import ContactBlocked
from messaging.models import Chat, Contact, Session
from messaging.services.engine import engine_errors, engine_for, require_connected
from messaging.services.events import event_record

#: The chat actions of the API and the engine call of each.
CHAT_ACTIONS = ("archive", "pin", "mute", "unread")


def engine_events_record(session: Session, events: Iterable[EngineEvent]) -> None:
    """Record and emit the events an engine call returned, in one transaction under the Session row's
    lock (which orders one session's writes, as for every reported event)."""
    with transaction.atomic():
        locked = Session.objects.select_for_update().get(pk=session.pk)
        for event in events:
            event_record(locked, event)
        session.blocked_contacts = locked.blocked_contacts


def chat_state_set(*, session: Session, chat: str, action: str, value: bool | str | None) -> Chat:
    """Archive (`value` bool), pin (bool), mute (ISO 8601 end, None to unmute) or mark unread (bool)
    `chat`; returns its row as recorded."""
    require_connected(session)
    engine = engine_for(session)
    call = {
        "archive": engine.chat_archive,
        "pin": engine.chat_pin,
        "mute": engine.chat_mute,
        "unread": engine.chat_unread,
    }[action]
    with engine_errors():
        events = call(str(session.pk), chat, value)
    engine_events_record(session, events)
    row = Chat.objects.filter(session=session, jid=chat).first()
    return row if row is not None else _chat_row(session, chat)


def contact_block_set(*, session: Session, jid: str, blocked: bool) -> None:
    require_connected(session)
    with engine_errors():
        events = engine_for(session).contact_block(str(session.pk), jid, blocked)
    engine_events_record(session, events)


def blocked_contacts(*, session: Session) -> QuerySet[Contact]:
    return session.contacts.filter(blocked=True).order_by("jid")


def contact_blocked_check(session: Session, to: str) -> None:
    """Refuse a send to a contact the session blocked (409 CONTACT_BLOCKED): WhatsApp would not deliver
    it and the phone refuses it too."""
    if not session.blocked_contacts or is_group(to):
        return  # the common case: no query at all
    if Contact.objects.filter(session=session, jid=to, blocked=True).exists():
        raise ContactBlocked(f"{to} is blocked by this session; unblock it (POST /api/contacts/block) first.")


def _chat_row(session: Session, chat: str) -> Chat:
    row, _ = Chat.objects.get_or_create(session=session, jid=chat, defaults={"is_group": is_group(chat)})
    return row
