"""List messages, link previews and forwards on the official channels (a mixin of GraphChannelEngine).

WhatsApp Cloud has an interactive list (`"type": "interactive", "interactive": {"type": "list", ...}`),
answered by a `list_reply` (Ponte's `list_response`), and previews a text's first link itself when asked
(`preview_url: true`: Meta reads the page, so a given title or thumbnail is not sent). The Graph API has
no forwarding on any channel, and Messenger and Instagram have neither lists nor previews: those answer
400 OPERATION_NOT_SUPPORTED naming the channel.
"""

from __future__ import annotations

from typing import Any

from messaging.channels import WHATSAPP_CLOUD
from messaging.channels.outbound import account_of, send, unsupported
from messaging.channels.window import window_template
from messaging.engines.base import (
    ListMessage,
    OutgoingForward,
    OutgoingList,
    OutgoingText,
    OutgoingTextPreview,
    Sent,
)


def interactive_list(message: ListMessage) -> dict[str, Any]:
    """The Cloud API's interactive list for a list message."""
    interactive: dict[str, Any] = {
        "type": "list",
        "body": {"text": message.text},
        "action": {
            "button": message.button_text,
            "sections": [
                {
                    "title": section.title,
                    "rows": [
                        {
                            "id": row.row_id,
                            "title": row.title,
                            **({"description": row.description} if row.description else {}),
                        }
                        for row in section.rows
                    ],
                }
                for section in message.sections
            ],
        },
    }
    if message.title:
        interactive["header"] = {"type": "text", "text": message.title}
    if message.footer:
        interactive["footer"] = {"text": message.footer}
    return interactive


class GraphLists:
    def send_list(self, session_id: str, message: OutgoingList) -> Sent:
        account = account_of(session_id)
        if account.session.provider != WHATSAPP_CLOUD:
            raise unsupported(account.session.provider, "send list messages")
        return send(account, message.to, "interactive", interactive_list(message.message))

    def send_text_preview(self, session_id: str, message: OutgoingTextPreview) -> Sent:
        """The text with `preview_url: true`; outside the 24-hour window, the template path of a text."""
        account, to, text = account_of(session_id), message.to, message.text
        if account.session.provider != WHATSAPP_CLOUD:
            raise unsupported(account.session.provider, "send link previews")
        if window_template(session_id, to, text) is not None:
            plain = OutgoingText(to=to, text=text, quoted=message.quoted)
            return self.send_text(session_id, plain)  # type: ignore[attr-defined]
        context = message.quoted.message_id if message.quoted else ""
        return send(account, to, "text", {"body": text, "preview_url": True}, context_id=context)

    def send_forward(self, session_id: str, message: OutgoingForward) -> Sent:
        raise unsupported(
            account_of(session_id).session.provider, "forward messages (the Graph API has no forward)"
        )
