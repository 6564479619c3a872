"""The sandbox's polls and edits (a mixin of SandboxEngine, kept apart so each module stays small).

Sending a poll is a message like any other (echoed as an own `poll` message). Votes and the other
side's edits arrive through `inject`: the sandbox's "WhatsApp" knows the polls of its chats (Ponte's
record of them) and refuses a vote naming an option the poll does not have, or more options than it
allows, as WhatsApp's clients would never send one.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from messaging.engines.base import EngineNotFound, EngineRefused, OutgoingEdit, OutgoingPoll, Sent
from messaging.engines.events import EngineEvent, MessageEditedEvent, PollVoteEvent
from messaging.models import Message, Poll, SandboxDevice


class SandboxPolls:
    @transaction.atomic(savepoint=False)
    def send_poll(self, session_id: str, message: OutgoingPoll) -> Sent:
        poll = {
            "name": message.name,
            "options": list(message.options),
            "selectableCount": message.selectable_count,
        }
        device = self._sending(session_id, message.to)
        mentioned = {"mentions": list(message.mentions)} if message.mentions else {}
        return self._sent(device, message.to, "poll", poll=poll, **self._quoted(message.quoted), **mentioned)

    @transaction.atomic(savepoint=False)
    def send_edit(self, session_id: str, message: OutgoingEdit) -> Sent:
        """Accepted when the chat is reachable; the services record the edit (no event of its own)."""
        device = self._paired(session_id)
        self._chat_ok(device, message.to)
        return Sent(message_id=message.message_id, chat=message.to, timestamp=timezone.now())

    def inject_poll_or_edit(self, device: SandboxDevice, event: str, data: dict[str, Any]) -> EngineEvent:
        """A `poll_vote` or the other side's `message_edited`, from `inject`."""
        if event == "poll_vote":
            return self._vote(device, data)
        chat = data.get("chat") or data["from"]
        known = Message.objects.filter(
            session_id=device.session_id, chat=chat, message_id=data["messageId"], from_me=False
        ).exists()
        if not known:
            raise EngineNotFound(f"No message {data['messageId']!r} of the other side in chat {chat}.")
        return MessageEditedEvent(
            message_id=data["messageId"],
            chat_jid=chat,
            text=data["text"],
            edited_at=timezone.now().isoformat(),
            from_me=False,
            sender=data["from"],
        )

    @staticmethod
    def _vote(device: SandboxDevice, data: dict[str, Any]) -> PollVoteEvent:
        poll = Poll.objects.filter(session_id=device.session_id, message_id=data["pollMessageId"]).first()
        if poll is None:
            raise EngineNotFound(f"No poll {data['pollMessageId']!r} in this session.")
        chosen = list(dict.fromkeys(data["options"]))
        unknown = [name for name in chosen if name not in poll.options]
        if unknown:
            raise EngineRefused(f"options: {', '.join(map(repr, unknown))} not in the poll.")
        if len(chosen) > poll.selectable_count:
            raise EngineRefused(f"options: at most {poll.selectable_count} may be chosen in this poll.")
        return PollVoteEvent(
            poll_message_id=poll.message_id,
            voter=data["from"],
            selected_options=tuple(chosen),
            chat_jid=poll.chat,
            timestamp=int(timezone.now().timestamp()),
        )
