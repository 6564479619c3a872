"""The session settings an official channel honours (messaging.services.session_settings): with
`readMessages`, every message a customer sends is marked read through the Graph API as it arrives
(WhatsApp Cloud: `status: read`; Messenger and Instagram: `mark_seen`), by a job made after the message
is recorded (messaging.channels.calls). `ignoreGroups` needs nothing: these channels deliver no group
messages. A refused receipt is logged; the message is kept all the same. A customer's name not known yet
is a job of its own too (`profile_ask`)."""

from __future__ import annotations

from messaging.channels.calls import call_record
from messaging.channels.models import ChannelCall
from messaging.channels.profiles import profile_unknown
from messaging.engines.events import EngineEvent, MessageEvent
from messaging.models import Session


def profile_ask(session: Session, event: EngineEvent, asked: set[str]) -> None:
    """A Messenger or Instagram customer whose name is not known yet: a `profile` call recorded in the
    caller's transaction, made after it commits (once per chat and turn: `asked`)."""
    if profile_unknown(session, event) and event.chat not in asked:
        asked.add(event.chat)
        call_record(session=session, kind=ChannelCall.Kind.PROFILE, chat=event.chat, message_id=event.id)


def read_at_once(session: Session, event: EngineEvent) -> None:
    """Mark a customer's message read, for a session that reads messages at once (the caller checked
    `behaviour_of(...).read_messages` once for all its events): a call recorded in the caller's
    transaction, made after it commits."""
    if not isinstance(event, MessageEvent) or event.from_me or event.type == "reaction" or not event.id:
        return
    call_record(session=session, kind=ChannelCall.Kind.MARK_READ, chat=event.chat, message_id=event.id)
