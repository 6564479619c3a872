"""Polls: send one (the one send path, messaging.services.messages.message_send) and count its votes.

Votes arrive as `poll_vote` events (messaging.services.poll_edit_records keeps each voter's last one);
the results are read from those rows, so they are the same in every web process."""

from __future__ import annotations

from dataclasses import dataclass

from messaging.engines.base import OutgoingPoll
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
    outgoing = OutgoingPoll(
        to=to,
        name=name,
        options=tuple(options),
        selectable_count=selectable_count,
        quoted=quoted.as_quoted() if quoted else None,
        mentions=mentions,
    )
    return message_send(session=session, outgoing=outgoing, savepoint=savepoint)


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
