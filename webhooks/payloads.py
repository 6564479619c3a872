"""An event as webhooks carry it: the stored event parsed back into the contract's typed event, and the
registered webhooks' body. Both emit() (webhooks.services) and the instance webhooks
(webhooks.instance.services) build on this module."""

from __future__ import annotations

from typing import Any

from core.timefmt import iso_millis_of_ms
from messaging.engines.events import EVENT_TYPES, EngineEvent, event_from_data
from webhooks.models import Event


def typed_event(event: Event, given: EngineEvent | None = None) -> EngineEvent | None:
    """The stored event as the contract's typed event (None for a name outside the contract).
    `given`: the typed event the row was written from (emit() from an engine), used as it is rather
    than parsed back from the stored data."""
    if event.name not in EVENT_TYPES:
        return None
    if given is not None and given.name == event.name and (given.chat or not event.chat):
        return given
    data = event.data
    if event.name == "message" and not data.get("chat") and event.chat:
        data = {**data, "chat": event.chat}
    return event_from_data(event.name, data)


def envelope(event: Event, given: EngineEvent | None = None) -> dict[str, Any]:
    """The body of a registered-webhook delivery: `{event, session_id, data, timestamp}`; `data` is the
    typed event's wire form (for `message`, every field the message contract lists). `given`: as for
    typed_event."""
    typed = typed_event(event, given)
    return {
        "event": event.name,
        "session_id": str(event.session_id),
        "data": typed.to_data() if typed is not None else event.data,
        "timestamp": iso_millis_of_ms(event.event_ms),
    }
