"""List messages, list responses and forwards in the Chatwoot mirror, as text.

Chatwoot has no list messages: a list the session sent is mirrored as its text, the button and the rows
(numbered ids beside the titles, so an agent can tell them apart), a customer's choice as the row chosen,
and a forwarded message of any kind with a "Forwarded" line above its own content."""

from __future__ import annotations

from messaging.engines.events import MessageEvent

FORWARDED = "↪️ Forwarded"


def list_text(event: MessageEvent) -> str | None:
    """The text of a `list` or `list_response` message; None for other kinds."""
    if event.type == "list_response" and event.list_response is not None:
        choice = event.list_response
        return f"☑️ {choice.title}" + (f" — {choice.description}" if choice.description else "")
    if event.type == "list" and event.list_message is not None:
        listed = event.list_message
        lines = [part for part in (listed.title, event.text) if part]
        lines.append(f"[{listed.button_text}]")
        for section in listed.sections:
            lines.append(f"*{section.title}*")
            lines += [f"• {row.title} ({row.row_id})" for row in section.rows]
        if listed.footer:
            lines.append(listed.footer)
        return "\n".join(lines)
    return None


def forwarded_text(event: MessageEvent, content: str) -> str:
    """`content` with a "Forwarded" line above it when the message was forwarded."""
    if not event.forwarded:
        return content
    return f"{FORWARDED}\n{content}" if content else FORWARDED
