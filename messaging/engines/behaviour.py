"""A session's settings as the engines read them where they apply: an incoming call (`rejectCalls`), a
group message (`ignoreGroups`), an inbound message (`readMessages`), the connection (`alwaysOnline`),
pairing (`syncFullHistory`).

Read from the database at the moment they apply, so a change made through any web process is honoured
by every engine process at once, with nothing to push; a session without a settings row behaves as
with every setting off.
"""

from __future__ import annotations

from messaging.models import SessionSettings
from messaging.values import SessionBehaviour

_FIELDS = (
    "reject_calls",
    "reject_call_message",
    "ignore_groups",
    "read_messages",
    "always_online",
    "sync_full_history",
)


def behaviour_of(session_id: str) -> SessionBehaviour:
    """The session's settings (all off when it has none stored)."""
    row = SessionSettings.objects.filter(session_id=session_id).values(*_FIELDS).first()
    return SessionBehaviour(**row) if row else SessionBehaviour()
