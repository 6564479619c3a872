"""The bots' event sink: beside the outbox and the Chatwoot mirror (MESSAGING_EVENT_SINK names them),
it records a bot job for a customer's message that a bot should answer, and for a message the session
sent in a chat where a bot talks. Runs in the transaction of the event, so a rolled-back event starts
nothing; sessions without an enabled bot cost one lookup kept per process (webhooks.lookups)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.utils import timezone

from integrations.bots import jobs
from integrations.bots.lookups import session_bots
from integrations.bots.models import Conversation
from integrations.bots.rules import Rules, expired, starts
from messaging.engines.events import EngineEvent, MessageEvent
from messaging.models import Message

# Messages a bot reads: what a customer writes or picks. Reactions, deletions and polls are not.
ANSWERED_TYPES = frozenset(
    {"text", "image", "video", "audio", "document", "button_reply", "list_reply", "list_response"}
)


def message_text(event: MessageEvent) -> str:
    """What the bot reads of a message: its text, a caption, or the title of the option picked."""
    picked = event.list_response.title if event.list_response is not None else event.selected_title
    return event.text or event.caption or picked or ""


def message_item(event: MessageEvent, *, session_id: str, event_ms: int | None) -> dict[str, Any]:
    return {
        "id": event.id,
        "text": message_text(event),
        "type": event.type,
        "pushName": event.push_name,
        "sender": event.sender,
        "eventMs": event_ms if event_ms is not None else int(timezone.now().timestamp() * 1000),
        "data": event.to_data(),
    }


def _talking(bots: tuple[Rules, ...], chat: str) -> tuple[Rules, Conversation] | None:
    """The bot already talking in the chat (its conversation active and not expired), if any."""
    by_id = {rules.bot_id: rules for rules in bots}
    now = timezone.now()
    conversations = Conversation.objects.filter(
        bot_id__in=list(by_id), chat=chat, status=Conversation.Status.ACTIVE
    ).order_by("last_activity_at")
    for conversation in conversations:
        rules = by_id[conversation.bot_id]
        if not expired(rules.expire_minutes, conversation.last_activity_at, now):
            return rules, conversation
    return None


def _first_message(session_id: str, chat: str, message_id: str) -> bool:
    return (
        not Message.objects.filter(session_id=session_id, chat=chat).exclude(message_id=message_id).exists()
    )


def event_received(
    *, session_id: UUID | str, event: EngineEvent, chat: str = "", event_ms: int | None = None
) -> None:
    """The sink: `event` is the engine's typed event (messaging.services.events)."""
    if not isinstance(event, MessageEvent) or event.is_history or not event.id:
        return
    if event.type not in ANSWERED_TYPES:
        return
    bots = session_bots.get(str(session_id))
    if not bots:
        return
    chat = chat or event.chat
    if event.from_me:
        talking = _talking(bots, chat)
        if talking is not None:
            jobs.outgoing_record(bot_id=talking[0].bot_id, chat=chat, message_id=event.id)
        return
    text = message_text(event)
    talking = _talking(bots, chat)
    if talking is not None:
        chosen: Rules | None = talking[0]
    else:
        first = None  # asked only when a bot's trigger needs it

        def first_message() -> bool:
            nonlocal first
            if first is None:
                first = _first_message(str(session_id), chat, event.id)
            return first

        chosen = next(
            (
                rules
                for rules in bots
                if starts(
                    rules,
                    chat=chat,
                    text=text,
                    first_message=rules.trigger == "first_message" and first_message(),
                )
            ),
            None,
        )
    if chosen is None:
        return
    item = message_item(event, session_id=str(session_id), event_ms=event_ms)
    jobs.answer_record(bot_id=chosen.bot_id, debounce_seconds=chosen.debounce_seconds, chat=chat, item=item)
