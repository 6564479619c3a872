"""The session settings an official channel honours (messaging.services.session_settings): with
`readMessages`, every message a customer sends is marked read through the Graph API as it arrives
(WhatsApp Cloud: `status: read`; Messenger and Instagram: `mark_seen`). `ignoreGroups` needs nothing:
these channels deliver no group messages. A refused receipt is logged; the message is kept all the same."""

from __future__ import annotations

import logging

from messaging.channels.engine import GraphChannelEngine
from messaging.engines.base import EngineError
from messaging.engines.behaviour import behaviour_of
from messaging.engines.events import EngineEvent, MessageEvent
from messaging.models import Session

logger = logging.getLogger(__name__)


def read_at_once(session: Session, event: EngineEvent) -> None:
    """Mark a customer's message read when the session reads messages at once."""
    if not isinstance(event, MessageEvent) or event.from_me or event.type == "reaction" or not event.id:
        return
    if not behaviour_of(str(session.pk)).read_messages:
        return
    try:
        GraphChannelEngine().mark_read_typing(str(session.pk), event.chat, event.id, typing=False)
    except EngineError as exc:
        logger.warning("Marking %s read at once failed (session %s): %s", event.id, session.pk, exc)
