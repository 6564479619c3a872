"""What `poll_vote`, `message_edited` and `poll` messages change in Ponte's records, whoever reports
them (an engine's inbound event, or the API's own edit): the handlers of messaging.services.events.

Kept apart from the services that send polls and edits, which import the event recording themselves."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone

from messaging.engines.events import MessageEditedEvent, MessageEvent, PollVoteEvent
from messaging.engines.outgoing import Outgoing, OutgoingForward, OutgoingPoll
from messaging.models import Message, Poll, PollVote, Session
from messaging.values import ForwardContent


def poll_record(session: Session, event: MessageEvent) -> None:
    """A poll seen in a chat (sent from the phone, or by someone else): kept so its votes count."""
    poll = event.poll
    if poll is None or not event.id:
        return
    Poll.objects.bulk_create(
        [
            Poll(
                session=session,
                chat=event.chat,
                message_id=event.id,
                name=poll.name[:255],
                options=list(poll.options),
                selectable_count=poll.selectable_count or 1,
            )
        ],
        ignore_conflicts=True,
    )


def poll_keep(session: Session, message: Message, outgoing: Outgoing) -> None:
    """A poll the session sent (or forwarded: a new poll, whose votes are counted apart from the
    original's), kept with its message's row so its votes count; nothing for other kinds."""
    if isinstance(outgoing, OutgoingPoll):
        poll: OutgoingPoll | ForwardContent = outgoing
    elif isinstance(outgoing, OutgoingForward) and outgoing.content.type == "poll":
        poll = outgoing.content
    else:
        return
    Poll.objects.update_or_create(
        session=session,
        message_id=message.message_id,
        defaults={
            "chat": message.chat,
            "name": poll.name,
            "options": list(poll.options),
            "selectable_count": poll.selectable_count,
        },
    )


def poll_vote_record(session: Session, event: PollVoteEvent) -> str | None:
    """The voter's choice replaces their last one; an empty choice clears it. A vote in a poll Ponte
    does not know is still reported, but not counted. Returns the poll's chat when the event lacks it."""
    poll = Poll.objects.filter(session=session, message_id=event.poll_message_id).first()
    if poll is None:
        return None
    if not event.selected_options:
        PollVote.objects.filter(poll=poll, voter=event.voter).delete()
    else:
        at = datetime.fromtimestamp(event.timestamp, tz=UTC) if event.timestamp else timezone.now()
        PollVote.objects.update_or_create(
            poll=poll, voter=event.voter, defaults={"selected": list(event.selected_options), "voted_at": at}
        )
    return event.chat or poll.chat


def message_edited_record(session: Session, event: MessageEditedEvent) -> str | None:
    """The message's text becomes the edited one, marked edited (the history's `edited`, `editedAt`)."""
    messages = Message.objects.filter(session=session, message_id=event.message_id)
    if event.chat:
        messages = messages.filter(chat=event.chat)
    message = messages.first()
    if message is None:
        return None
    try:
        edited_at = datetime.fromisoformat(event.edited_at) if event.edited_at else timezone.now()
    except ValueError:
        edited_at = timezone.now()
    message.content = {**message.content, "text": event.text}
    message.edited_at = edited_at
    message.save(update_fields=["content", "edited_at"])
    return message.chat
