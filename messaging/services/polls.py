"""Polls: send one (the one send path, messaging.services.messages.message_send) and count its votes.

Votes arrive as `poll_vote` events (messaging.services.poll_edit_records keeps each voter's last one);
the results are read from those rows, so they are the same in every web process."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from messaging.engines.base import Engine, Quoted, SentMessage
from messaging.errors import MessageNotFound
from messaging.models import Message, Poll, Session
from messaging.services.messages import QuotedInput, message_send


@dataclass(frozen=True)
class OptionResult:
    name: str
    count: int
    voters: list[str]


@dataclass(frozen=True)
class PollResults:
    message_id: str
    name: str
    options: list[OptionResult]


def poll_send(
    *,
    session: Session,
    to: str,
    name: str,
    options: list[str],
    selectable_count: int = 1,
    quoted: QuotedInput | None = None,
    mentions: tuple[str, ...] = (),
    savepoint: bool = True,
) -> Message:
    """Send a poll and keep its question and options, so its votes can be counted (`mentions`: JIDs
    it mentions, resolved by messaging.services.mentions)."""

    def send(engine: Engine, session_id: str, quote: Quoted | None) -> SentMessage:
        if mentions:
            return engine.send_poll(session_id, to, name, options, selectable_count, quote, mentions=mentions)
        return engine.send_poll(session_id, to, name, options, selectable_count, quote)

    poll = {"name": name, "options": list(options), "selectableCount": selectable_count}

    def content(done: Any) -> dict[str, Any]:
        quote = {"quoted": {"messageId": done.quote.message_id}} if done.quote else {}
        return {"poll": poll, **quote, **({"mentions": list(mentions)} if mentions else {})}

    def keep(message: Message) -> None:  # with the message's row, so no vote finds the poll missing
        Poll.objects.update_or_create(
            session=session,
            message_id=message.message_id,
            defaults={
                "chat": message.chat,
                "name": name,
                "options": list(options),
                "selectable_count": selectable_count,
            },
        )

    return message_send(
        session=session,
        to=to,
        type_="poll",
        send=send,
        content=content,
        quoted=quoted,
        savepoint=savepoint,
        also=keep,
    )


def poll_results(*, session: Session, message_id: str) -> PollResults:
    """Each option with how many voters chose it and who (each voter's last vote counts)."""
    poll = Poll.objects.filter(session=session, message_id=message_id).first()
    if poll is None:
        raise MessageNotFound(f"No poll {message_id!r} in this session.")
    voters: dict[str, list[str]] = {option: [] for option in poll.options}
    for vote in poll.votes.order_by("voted_at", "id"):
        for option in vote.selected:
            if option in voters and vote.voter not in voters[option]:
                voters[option].append(vote.voter)
    options = [OptionResult(name=o, count=len(voters[o]), voters=voters[o]) for o in poll.options]
    return PollResults(message_id=poll.message_id, name=poll.name, options=options)
