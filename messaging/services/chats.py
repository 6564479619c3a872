"""Chat actions: read receipts (`POST /api/chats/read`) and presence (`POST /api/chats/presence`)."""

from __future__ import annotations

from messaging.addressing import is_group
from messaging.errors import MessageNotFound
from messaging.models import Message, Session
from messaging.services.directory import directory_read
from messaging.services.engine import engine_errors, engine_for, require_connected

# Without `messageIds`, the newest received messages of the chat are marked read, at most this many.
READ_BATCH = 100


def chat_mark_read(*, session: Session, chat: str, message_ids: list[str] | None = None) -> list[str]:
    """Send read receipts for received messages of `chat`: those named, or the newest READ_BATCH.
    Returns the ids marked. Named ids must be received messages of the chat in the history (404).

    No transaction around it: the receipts are calls to the engine (the Graph API for official
    channels), which must not hold one open (net.guard); the chat's row is marked read once they went
    out, in one statement."""
    require_connected(session)
    received = Message.objects.filter(session=session, chat=chat, from_me=False)
    if message_ids:
        found = dict(received.filter(message_id__in=message_ids).values_list("message_id", "sender"))
        missing = [m for m in message_ids if m not in found]
        if missing:
            raise MessageNotFound(f"No received message {missing[0]!r} in chat {chat}.")
        senders = found
    else:
        newest = received.order_by("-timestamp", "-id").values_list("message_id", "sender")
        senders = dict(newest[:READ_BATCH])
    # Receipts name the author of the messages in groups: one engine call per author. The engine first,
    # outside any transaction (no outside call inside one); the chat is marked read once they went out.
    by_sender: dict[str, list[str]] = {}
    for message_id, sender in senders.items():
        by_sender.setdefault(sender if is_group(chat) else "", []).append(message_id)
    engine = engine_for(session)
    with engine_errors():
        for sender, ids in by_sender.items():
            engine.mark_read(str(session.pk), chat, ids, sender)
    if not engine.reports_own_reads:
        # The platform (the Graph API) reports no receipt of the session's own reading: recorded here.
        received.filter(message_id__in=list(senders)).update(status=Message.Status.READ)
    directory_read(session, chat=chat)
    return list(senders)


def chat_presence(*, session: Session, chat: str, presence: str) -> None:
    """Show the account as typing, recording or paused in `chat`, or available/unavailable: one engine
    call, in no transaction (net.guard)."""
    require_connected(session)
    with engine_errors():
        engine_for(session).send_presence(str(session.pk), chat, presence)
