"""Polls and edits on WhatsApp, both ways, through neonize's own calls.

Out: a poll is built by the library (`build_poll_vote_creation`, which adds the message secret votes are
encrypted with) and sent; an edit goes through `edit_message`. In: a vote is a `pollUpdateMessage`
whose choice the library decrypts (`decrypt_poll_vote`) into the SHA-256 of each chosen option's name,
matched against the poll's options as Ponte recorded them; an edit is a MESSAGE_EDIT protocol message,
bare or wrapped in `editedMessage`."""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime
from typing import Any

from neonize.proto.waE2E import WAWebProtobufsE2E_pb2 as wa
from neonize.utils.enum import VoteType

from messaging.engines.base import Quoted, Sent
from messaging.engines.events import EngineEvent, MessageEditedEvent, MessageEvent, PollRef, PollVoteEvent
from messaging.engines.whatsapp.inbound import jid_str
from messaging.engines.whatsapp.outbound import context_info, sent_of, to_jid
from messaging.models import Poll

logger = logging.getLogger(__name__)
_MESSAGE_EDIT = 14  # ProtocolMessage.Type.MESSAGE_EDIT
_POLL_FIELDS = ("pollCreationMessage", "pollCreationMessageV2", "pollCreationMessageV3")


def send_poll(
    client: Any,
    to: str,
    name: str,
    options: list[str],
    selectable_count: int,
    quoted: Quoted | None,
    mentions: tuple[str, ...] = (),
) -> Sent:
    vote_type = VoteType.SINGLE if selectable_count == 1 else VoteType.MULTIPLE
    message = client.build_poll_vote_creation(name, list(options), vote_type)
    for field in _POLL_FIELDS:
        if message.HasField(field):
            poll = getattr(message, field)
            # The library knows "one" or "any"; WhatsApp takes the exact limit.
            poll.selectableOptionsCount = selectable_count
            if quoted is not None or mentions:
                poll.contextInfo.CopyFrom(context_info(quoted, mentions))
    return sent_of(client.send_message(to_jid(to), message), to)


def edit_message(client: Any, chat: str, message_id: str, text: str) -> Sent:
    """The edit's own event is the services' to record (the library reports no echo of it)."""
    client.edit_message(to_jid(chat), message_id, wa.Message(conversation=text))
    return Sent(message_id=message_id, chat=chat, timestamp=datetime.now(tz=UTC))


def _seconds(value: int) -> int:
    return int(value // 1000 if value > 10**11 else value)


def _edit(message: Any) -> Any | None:
    """The MESSAGE_EDIT protocol message inside `message`, if it is one."""
    if message.HasField("editedMessage"):
        message = message.editedMessage.message
    if message.HasField("protocolMessage") and message.protocolMessage.type == _MESSAGE_EDIT:
        return message.protocolMessage
    return None


def _edited_text(edited: Any) -> str:
    if edited.HasField("extendedTextMessage"):
        return edited.extendedTextMessage.text
    return edited.conversation


def edit_event(ev: Any) -> MessageEditedEvent | None:
    protocol = _edit(ev.Message)
    if protocol is None:
        return None
    source = ev.Info.MessageSource
    stamp = _seconds(protocol.timestampMS) or _seconds(ev.Info.Timestamp)
    at = datetime.fromtimestamp(stamp, tz=UTC) if stamp else datetime.now(tz=UTC)
    return MessageEditedEvent(
        message_id=protocol.key.ID,
        chat_jid=jid_str(source.Chat),
        text=_edited_text(protocol.editedMessage),
        edited_at=at.isoformat(),
        from_me=bool(source.IsFromMe),
        sender=jid_str(source.Sender) or None,
    )


def option_names(session_id: str, poll_id: str, hashes: list[bytes]) -> tuple[str, ...]:
    """The chosen options' names, from their SHA-256 (how WhatsApp votes name them)."""
    poll = Poll.objects.filter(session_id=session_id, message_id=poll_id).first()
    by_hash = {hashlib.sha256(o.encode()).digest(): o for o in (poll.options if poll else [])}
    return tuple(by_hash.get(h, h.hex()) for h in hashes)


def vote_event(session_id: str, client: Any, ev: Any) -> PollVoteEvent | None:
    if not ev.Message.HasField("pollUpdateMessage"):
        return None
    update = ev.Message.pollUpdateMessage
    poll_id = update.pollCreationMessageKey.ID
    vote = client.decrypt_poll_vote(ev)
    source = ev.Info.MessageSource
    return PollVoteEvent(
        poll_message_id=poll_id,
        voter=jid_str(source.Sender),
        selected_options=option_names(session_id, poll_id, list(vote.selectedOptions)),
        chat_jid=jid_str(source.Chat),
        timestamp=_seconds(update.senderTimestampMS) or _seconds(ev.Info.Timestamp) or None,
    )


def _poll_of(message: Any) -> Any | None:
    return next((getattr(message, f) for f in _POLL_FIELDS if message.HasField(f)), None)


def poll_event(ev: Any) -> MessageEvent | None:
    """A poll created in a chat (by the other side, or from the phone): a `poll` message."""
    poll = _poll_of(ev.Message)
    if poll is None:
        return None
    info, source = ev.Info, ev.Info.MessageSource
    return MessageEvent(
        id=info.ID,
        chat_jid=jid_str(source.Chat),
        sender=jid_str(source.Sender),
        push_name=info.Pushname,
        timestamp=_seconds(info.Timestamp),
        from_me=bool(source.IsFromMe),
        type="poll",
        poll=PollRef(
            name=poll.name,
            options=tuple(o.optionName for o in poll.options),
            selectable_count=int(poll.selectableOptionsCount) or len(poll.options),
        ),
    )


def message_events(session_id: str, client: Any, ev: Any) -> list[EngineEvent] | None:
    """A vote or an edit as its event; None when the message is neither (an ordinary message)."""
    try:
        found: EngineEvent | None = edit_event(ev) or poll_event(ev) or vote_event(session_id, client, ev)
    except Exception:  # an undecryptable vote: dropped, not fatal to the connection
        logger.warning("A poll vote or edit of session %s could not be read", session_id, exc_info=True)
        return [] if ev.Message.HasField("pollUpdateMessage") else None
    return [found] if found is not None else None
