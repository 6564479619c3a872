"""Official-channel actions beyond the engine contract: mark as read with the typing indicator."""

from __future__ import annotations

from messaging.channels.engine import GraphChannelEngine
from messaging.errors import OperationNotSupported
from messaging.models import Message, Session
from messaging.services.engine import engine_errors, engine_for, require_connected


def _channel_engine(session: Session) -> GraphChannelEngine:
    engine = engine_for(session)
    if not session.official or not isinstance(engine, GraphChannelEngine):
        raise OperationNotSupported(
            f"Session {session.pk} is not an official channel session; this route serves official channels."
        )
    return engine


def channel_mark_read(*, session: Session, chat: str, message_id: str, typing: bool = True) -> None:
    """Mark a received message read on the channel; `typing` shows the indicator (it clears itself).
    In no transaction: the Graph API call first, then the message's status in one statement."""
    engine = _channel_engine(session)
    require_connected(session)
    with engine_errors():
        engine.mark_read_typing(str(session.pk), chat, message_id, typing)
    Message.objects.filter(session=session, chat=chat, message_id=message_id, from_me=False).update(
        status=Message.Status.READ
    )
