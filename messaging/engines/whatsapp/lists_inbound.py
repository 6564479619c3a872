"""List responses, own lists, link previews and forwards arriving from WhatsApp, from neonize's own
protobuf types: a `listResponseMessage` is a `list_response` (the row chosen), an own `listMessage`
(sent from the phone) a `list`, an extended text's `matchedText` its `link_preview`, and any content's
`contextInfo.isForwarded` makes the message `forwarded`."""

from __future__ import annotations

from typing import Any

from messaging.engines.events import (
    LinkPreviewRef,
    ListRef,
    ListResponseRef,
    ListRowRef,
    ListSectionRef,
    QuotedRef,
)


def list_fields(message: Any) -> dict[str, Any] | None:
    """The fields of a `listResponseMessage` or a `listMessage`; None for other content."""
    if message.HasField("listResponseMessage"):
        reply = message.listResponseMessage
        choice = ListResponseRef(
            row_id=reply.singleSelectReply.selectedRowID, title=reply.title, description=reply.description
        )
        context = reply.contextInfo
        quoted = QuotedRef(context.stanzaID, context.participant) if context.stanzaID else None
        return {"type": "list_response", "text": reply.title, "list_response": choice, "quoted": quoted}
    if message.HasField("listMessage"):
        sent = message.listMessage
        sections = tuple(
            ListSectionRef(
                title=s.title,
                rows=tuple(ListRowRef(r.rowID, r.title, r.description) for r in s.rows),
            )
            for s in sent.sections
        )
        listed = ListRef(
            button_text=sent.buttonText, title=sent.title, footer=sent.footerText, sections=sections
        )
        return {"type": "list", "text": sent.description, "list_message": listed}
    return None


def link_preview_of(extended: Any) -> LinkPreviewRef | None:
    """The preview WhatsApp shows with an extended text: its `matchedText` link, title, description."""
    if not extended.matchedText:
        return None
    return LinkPreviewRef(url=extended.matchedText, title=extended.title, description=extended.description)


def forwarded_of(message: Any) -> bool | None:
    """True when the content's `contextInfo` says the message was forwarded; None otherwise."""
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None or "contextInfo" not in descriptor.message_type.fields_by_name:
            continue
        if value.HasField("contextInfo") and value.contextInfo.isForwarded:
            return True
    return None
