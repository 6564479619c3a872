"""The frames a live socket sends: events, and a few control frames with a `type`."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

from webhooks.live.broadcast import LiveEvent
from webhooks.models import Event
from webhooks.payloads import envelope


def _text(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def event_frame(event: LiveEvent) -> str:
    """Exactly the body a registered webhook receives for the event (webhooks.services.envelope), plus
    the event's `id` (what `since` takes) and `seq` (its number in its conversation)."""
    stored = Event(
        id=uuid.UUID(event.id),
        session_id=uuid.UUID(event.session_id),
        name=event.name,
        data=event.data,
        chat=event.chat,
        sequence=event.sequence,
        event_ms=event.event_ms,
        received_at_ms=event.event_ms,
        created_at=datetime.fromisoformat(event.created_at),
    )
    return _text({**envelope(stored), "id": event.id, "seq": event.sequence})


def control_frame(kind: str, **fields: Any) -> str:
    return _text({"type": kind, **fields})
