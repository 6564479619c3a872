"""What official channels answer to chat and contact actions and labels (issue 41; a mixin of
GraphChannelEngine). The Graph API has a blocklist for WhatsApp Cloud numbers and nothing else of these:

* block: `POST /{phone-number-id}/block_users` `{"messaging_product": "whatsapp", "block_users":
  [{"user": "<number>"}]}`, unblock: `DELETE` with the same body; the answer lists `added_users` /
  `removed_users` and `failed_users` with their `errors` (Meta blocks only customers who wrote in the
  last 24 hours). Messenger and Instagram have no such call.
* archive, pin, mute, mark unread, labels: no call on any channel (400 OPERATION_NOT_SUPPORTED naming
  the channel).
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from messaging.channels import WHATSAPP_CLOUD, graph
from messaging.channels.outbound import account_of, recipient, token_of, translate, unsupported
from messaging.engines.base import EngineRefused
from messaging.engines.chat_events import ContactBlockEvent
from messaging.engines.events import EngineEvent


class GraphChatActions:
    @staticmethod
    def _cannot(session_id: str, what: str) -> Exception:
        return unsupported(account_of(session_id).session.provider, what)

    def chat_archive(self, session_id: str, chat: str, archived: bool) -> list[EngineEvent]:
        raise self._cannot(session_id, "archive chats")

    def chat_pin(self, session_id: str, chat: str, pinned: bool) -> list[EngineEvent]:
        raise self._cannot(session_id, "pin chats")

    def chat_mute(self, session_id: str, chat: str, muted_until: str | None) -> list[EngineEvent]:
        raise self._cannot(session_id, "mute chats")

    def chat_unread(self, session_id: str, chat: str, unread: bool) -> list[EngineEvent]:
        raise self._cannot(session_id, "mark chats unread")

    def label_edit(
        self, session_id: str, label_id: str, name: str, color: int, deleted: bool = False
    ) -> list[EngineEvent]:
        raise self._cannot(session_id, "manage labels")

    def chat_label(self, session_id: str, chat: str, label_id: str, labeled: bool) -> list[EngineEvent]:
        raise self._cannot(session_id, "label chats")

    def contact_block(self, session_id: str, jid: str, blocked: bool) -> list[EngineEvent]:
        account = account_of(session_id)
        if account.session.provider != WHATSAPP_CLOUD:
            raise unsupported(account.session.provider, "block contacts")
        body = {"messaging_product": "whatsapp", "block_users": [{"user": recipient(jid)}]}
        path = f"{account.credential('phoneNumberId')}/block_users"
        try:
            answer = graph.call("POST" if blocked else "DELETE", path, token_of(account), json=body)
        except graph.GraphError as exc:
            raise translate(exc, account) from None
        _refused_check(answer, jid)
        return [ContactBlockEvent(jid=jid, blocked=blocked, timestamp=int(timezone.now().timestamp()))]


def _refused_check(answer: dict[str, Any], jid: str) -> None:
    """Meta answers 200 with the number under `failed_users` when it refuses it (e.g. no message from
    the customer in the last 24 hours)."""
    failed = (answer.get("block_users") or {}).get("failed_users") or []
    if failed:
        errors = failed[0].get("errors") or [{}]
        reason = errors[0].get("message") or errors[0].get("title") or "refused"
        raise EngineRefused(f"WhatsApp Cloud API refused to change the block of {jid}: {reason}")
