"""Writes of the outbox."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import Max

from webhooks.models import Event


def _now_ms() -> int:
    return int(time.time() * 1000)


@transaction.atomic
def emit(
    *, session_id: UUID | str, name: str, data: dict[str, Any], chat: str = "", event_ms: int | None = None
) -> Event:
    """Record that `name` happened on a session, in the caller's transaction.

    The one entry point for everything that happens on a session (engines report through
    `on_event(session_id, name, data)`, wired here). Deliveries to matching targets are written in the
    same transaction and enqueued on commit.
    """
    received = _now_ms()
    last = Event.objects.filter(session_id=session_id, chat=chat).aggregate(m=Max("sequence"))["m"] or 0
    return Event.objects.create(
        session_id=session_id,
        name=name,
        data=data,
        chat=chat,
        sequence=last + 1,
        event_ms=event_ms or received,
        received_at_ms=received,
    )
