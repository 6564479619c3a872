"""`poll_vote` and `message_edited` in the `meta` body: Ponte's extension of `messages[]`.

The cloud API has no polls and reports no edits, so there is no official shape to follow; both are
`messages[]` entries of their own type, named after it like every other entry, pointing at the message
they concern through `context.id`:

    {"from": "5511988880002", "id": "<poll id>", "timestamp": "...", "type": "poll_vote",
     "context": {"id": "<poll id>"}, "poll_vote": {"poll_message_id": "...", "selected_options": [...]}}
    {"from": "...", "id": "<message id>", "timestamp": "...", "type": "edit",
     "context": {"id": "<message id>"}, "edit": {"message_id": "...", "body": "...", "edited_at": "..."}}
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from messaging.addressing import is_group
from messaging.engines.events import MessageEditedEvent, PollVoteEvent
from messaging.models import Session
from webhooks.meta.common import base_value, contact_entry, own_number, unix_seconds, user_part
from webhooks.models import Event


def _entry(chat: str, number: str, target: str, at: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "from": number,
        "chat_type": "group" if is_group(chat) else "individual",
        "id": target,
        "timestamp": at,
        "context": {"id": target},
    }
    if is_group(chat):
        entry["group_id"] = chat
    return entry


def poll_vote_value(session: Session, event: Event, vote: PollVoteEvent) -> dict[str, Any]:
    number = user_part(vote.voter)
    entry = _entry(vote.chat, number, vote.poll_message_id, unix_seconds(vote.timestamp, event.event_ms))
    entry["type"] = "poll_vote"
    entry["poll_vote"] = {
        "poll_message_id": vote.poll_message_id,
        "selected_options": list(vote.selected_options),
    }
    return {
        **base_value(session),
        "contacts": [contact_entry(session, number=number, name="")],
        "messages": [entry],
    }


def _edited_seconds(edit: MessageEditedEvent) -> int | None:
    try:
        return int(datetime.fromisoformat(edit.edited_at).timestamp()) if edit.edited_at else None
    except ValueError:
        return None


def message_edited_value(session: Session, event: Event, edit: MessageEditedEvent) -> dict[str, Any]:
    author = own_number(session) if edit.from_me else user_part(edit.sender or edit.chat)
    entry = _entry(edit.chat, author, edit.message_id, unix_seconds(_edited_seconds(edit), event.event_ms))
    entry["type"] = "edit"
    entry["edit"] = {"message_id": edit.message_id, "body": edit.text, "edited_at": edit.edited_at}
    if edit.from_me:
        entry["to"] = user_part(edit.chat)
    contact = contact_entry(session, number=user_part(edit.chat) if edit.from_me else author, name="")
    return {**base_value(session), "contacts": [contact], "messages": [entry]}
