"""The mirror's event sink: beside the outbox (MESSAGING_EVENT_SINK names both), it records a mirror
job for the session's messages, receipts and the customer's typing when the session has a working
Chatwoot integration. Runs in the transaction of the event, so a rolled-back event mirrors nothing."""

from __future__ import annotations

from uuid import UUID

from integrations.chatwoot import jobs
from integrations.chatwoot.calls import mirrored_call
from integrations.chatwoot.lookups import working_integration
from integrations.chatwoot.models import MirrorJob
from messaging.engines.events import (
    EngineEvent,
    MessageAckEvent,
    MessageEditedEvent,
    MessageEvent,
    PollVoteEvent,
    PresenceEvent,
)

MIRRORED = (MessageEvent, MessageAckEvent, PresenceEvent, MessageEditedEvent, PollVoteEvent)


def event_received(
    *, session_id: UUID | str, event: EngineEvent, chat: str = "", event_ms: int | None = None
) -> None:
    """The sink: `event` is the engine's typed event (messaging.services.events)."""
    if not isinstance(event, MIRRORED) and not mirrored_call(event):
        return
    integration_id = working_integration.get(str(session_id))
    if integration_id is None:
        return
    if isinstance(event, MessageEvent) and event.is_history:
        return  # history sync is not live traffic
    key = event.chat if isinstance(event, PresenceEvent) else (chat or event.chat)
    if not key:
        return
    dedupe = f"wa-message:{event.id}" if isinstance(event, MessageEvent) and event.id else None
    # The job keeps the event's wire form: it runs later, on a worker (integrations.chatwoot.runner).
    job = jobs.job_record(
        integration_id=integration_id,
        direction=MirrorJob.Direction.TO_PLATFORM,
        kind=event.name,
        chat=key,
        payload={**event.to_data(), "chat": event.chat or key},
        dedupe_key=dedupe,
    )
    if job is not None and isinstance(event, PresenceEvent):
        MirrorJob.objects.filter(pk=job.pk).update(max_attempts=1)  # stale typing is worth nothing
