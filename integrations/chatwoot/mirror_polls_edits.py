"""Edits, polls and votes in the Chatwoot mirror.

Chatwoot's API cannot change a message's content (PATCH takes a status only), so an edit made on the
channel becomes a private note replying to the mirrored message: "✏️ Edited: <new text>". A vote becomes
a private note in the poll's conversation; a poll itself is mirrored as text (question and options)."""

from __future__ import annotations

from integrations.chatwoot.config import client_for
from integrations.chatwoot.models import ChatLink, ChatwootIntegration, MessageLink
from messaging.engines.events import MessageEditedEvent, PollRef, PollVoteEvent


def poll_text(poll: PollRef) -> str:
    limit = "" if poll.selectable_count <= 1 else f" (up to {poll.selectable_count} choices)"
    return "\n".join([f"📊 {poll.name}{limit}", *(f"◻️ {option}" for option in poll.options)])


def _note(integration: ChatwootIntegration, chat: str, text: str, reply_to: int | None = None) -> None:
    link = ChatLink.objects.filter(integration=integration, chat=chat).first()
    if link is None or not link.conversation_id:
        return  # nothing of this chat was mirrored: nothing to annotate
    fields: dict = {"content": text, "message_type": "outgoing", "private": True}
    if reply_to is not None:
        fields["content_attributes"] = {"in_reply_to": reply_to}
    client_for(integration).message_create(integration.account_id, link.conversation_id, fields)


def edit_mirror(integration: ChatwootIntegration, event: MessageEditedEvent) -> None:
    """A private note replying to the mirrored message, with its new text."""
    target = MessageLink.objects.filter(integration=integration, message_id=event.message_id).first()
    if target is None:
        return  # the edited message was never mirrored
    _note(integration, target.chat, f"✏️ Edited: {event.text}", reply_to=target.chatwoot_id)


def vote_mirror(integration: ChatwootIntegration, event: PollVoteEvent) -> None:
    target = MessageLink.objects.filter(integration=integration, message_id=event.poll_message_id).first()
    voter = event.voter.split("@", 1)[0]
    chosen = ", ".join(event.selected_options) if event.selected_options else "(vote withdrawn)"
    _note(
        integration,
        target.chat if target else event.chat,
        f"📊 +{voter} voted: {chosen}",
        reply_to=target.chatwoot_id if target else None,
    )
