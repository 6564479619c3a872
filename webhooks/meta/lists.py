"""List messages, list responses and link previews in the `meta` body's `messages[]`.

A customer's choice in a list (`list_response`) is the cloud API's own interactive `list_reply`; a list
the session sent (`list`, echoed) is `type: "interactive"` with the cloud API's interactive list object,
as it is sent (header, body, footer, action with the button and sections). The cloud API's inbound text
carries no preview, so a text's `linkPreview` is Ponte's extension: `text.link_preview` with `url`,
`title` and `description`. (A forwarded message's `context.forwarded: true` is the cloud API's own.)
"""

from __future__ import annotations

from typing import Any

from messaging.engines.events import MessageEvent
from webhooks.meta.common import as_text

#: The message types rendered here (the legacy `list_reply` of events stored before `list_response`).
LIST_TYPES = ("list", "list_response", "list_reply")


def text_object(message: MessageEvent) -> dict[str, Any]:
    obj: dict[str, Any] = {"body": message.text}
    preview = message.link_preview
    if preview is not None:
        obj["link_preview"] = {"url": preview.url, "title": preview.title, "description": preview.description}
    return obj


def _reply(message: MessageEvent) -> dict[str, str]:
    choice = message.list_response
    if choice is not None:
        return {"id": choice.row_id, "title": choice.title, "description": choice.description}
    return {
        "id": as_text(message.selected_id),
        "title": as_text(message.selected_title),
        "description": as_text(message.selected_description),
    }


def _list_object(message: MessageEvent) -> dict[str, Any]:
    listed = message.list_message
    sections = []
    for section in listed.sections if listed else ():
        rows = [
            {"id": r.row_id, "title": r.title, **({"description": r.description} if r.description else {})}
            for r in section.rows
        ]
        sections.append({"title": section.title, "rows": rows})
    obj: dict[str, Any] = {
        "type": "list",
        "body": {"text": message.text},
        "action": {"button": listed.button_text if listed else "", "sections": sections},
    }
    if listed and listed.title:
        obj["header"] = {"type": "text", "text": listed.title}
    if listed and listed.footer:
        obj["footer"] = {"text": listed.footer}
    return obj


def list_entry(message: MessageEvent, entry: dict[str, Any]) -> None:
    """Fill a `messages[]` entry for a `list` or a `list_response` message."""
    entry["type"] = "interactive"
    if message.type == "list":
        entry["interactive"] = _list_object(message)
    else:
        entry["interactive"] = {"type": "list_reply", "list_reply": _reply(message)}
