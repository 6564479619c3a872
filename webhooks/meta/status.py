"""`status` (a contact's status, or story) in the `meta` body: Ponte's extension, field `status`.

The cloud API has no statuses, so there is no official shape to follow. The value is built like a
`messages` value (metadata, `contacts` with the author), the status in `status_posts[]`, typed like a
message entry and named after its type:

    {"from": "5511988880002", "id": "<status id>", "timestamp": "...", "type": "text",
     "text": {"body": "Bom dia", "background_color": "#112233", "font": 4}}
    {"from": "...", "id": "...", "timestamp": "...", "type": "image",
     "image": {"url": "<signed link>", "mime_type": "image/jpeg", "sha256": "...", "caption": "..."}}
    {"from": "...", "id": "<status id>", "timestamp": "...", "type": "revoked"}
"""

from __future__ import annotations

from typing import Any

from messaging.engines.status_events import StatusEvent
from messaging.models import Session
from webhooks.meta.common import as_text, base_value, contact_entry, own_number, unix_seconds, user_part
from webhooks.models import Event


def status_value(session: Session, event: Event, status: StatusEvent) -> dict[str, Any]:
    number = own_number(session) if status.from_me else user_part(status.sender)
    entry: dict[str, Any] = {
        "from": number,
        "id": status.id,
        "timestamp": unix_seconds(status.timestamp, event.event_ms),
        "type": status.type,
    }
    if status.type == "text":
        entry["text"] = {
            "body": status.text,
            "background_color": as_text(status.background_color),
            "font": int(status.font or 0),
        }
    elif status.type in ("image", "video"):
        entry[status.type] = {
            "url": as_text(status.media_url),
            "mime_type": as_text(status.mime_type),
            "sha256": as_text(status.sha256),
            "caption": as_text(status.caption),
        }
    return {
        **base_value(session),
        "contacts": [contact_entry(session, number=number, name=status.push_name)],
        "status_posts": [entry],
    }
