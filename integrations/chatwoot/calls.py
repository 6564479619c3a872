"""Calls the session rejected by its `rejectCalls` setting, as a private note in the caller's Chatwoot
conversation: the agents see that the customer tried to call (and that the customer was told, when the
session's message follows as an outgoing message). Only in a conversation already open: a call alone
never opens one, as the customer said nothing yet. Other call events are not mirrored."""

from __future__ import annotations

from integrations.chatwoot.config import client_for
from integrations.chatwoot.models import ChatLink, ChatwootIntegration
from messaging.engines.events import CallEvent


def mirrored_call(event: object) -> bool:
    return isinstance(event, CallEvent) and event.status == "reject"


def call_mirror(integration: ChatwootIntegration, chat: str, event: CallEvent) -> None:
    link = ChatLink.objects.filter(integration=integration, chat=chat).first()
    if link is None or not link.conversation_id:
        return
    kind = "video call" if event.video else "call"
    text = f"📞 Incoming {kind} rejected automatically (the session rejects calls)."
    client_for(integration).private_note(integration.account_id, link.conversation_id, text)
