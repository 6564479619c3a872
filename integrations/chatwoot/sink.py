"""The mirror's event sink: beside the outbox (MESSAGING_EVENT_SINK names both), it records a mirror
job for the session's messages, receipts and the customer's typing when the session has a working
Chatwoot integration. Runs in the transaction of the event, so a rolled-back event mirrors nothing."""

from __future__ import annotations

from functools import cache
from uuid import UUID

from django.db import connection

from integrations.chatwoot import jobs
from integrations.chatwoot.calls import mirrored_call
from integrations.chatwoot.models import ChatwootIntegration, MirrorJob
from messaging.engines.events import (
    EngineEvent,
    MessageAckEvent,
    MessageEditedEvent,
    MessageEvent,
    PollVoteEvent,
    PresenceEvent,
)
from webhooks.lookups import Versioned

MIRRORED = (MessageEvent, MessageAckEvent, PresenceEvent, MessageEditedEvent, PollVoteEvent)


@cache
def _integration_sql() -> str:
    meta, qn = ChatwootIntegration._meta, connection.ops.quote_name

    def column(name: str) -> str:
        return qn(meta.get_field(name).column)

    # Names from the model's metadata only; the session id is a parameter.
    return (
        f"SELECT {column('id')} FROM {qn(meta.db_table)} WHERE {column('session')} = %s"  # noqa: S608
        f" AND {column('enabled')} AND {column('inbox_id')} IS NOT NULL"
    )


def _working_integration_load(session_id: UUID | str) -> int | None:
    """The session's enabled, set-up integration. Asked on every message, receipt and typing event of
    every session, and almost always answered "none": kept per process (`working_integration`), and
    read with one plain statement, as the ORM spent more than twice the round trip's CPU composing
    this query each time."""
    value = ChatwootIntegration._meta.get_field("session").target_field.get_db_prep_value(
        UUID(str(session_id)), connection
    )
    with connection.cursor() as cursor:
        cursor.execute(_integration_sql(), [value])
        row = cursor.fetchone()
    return row[0] if row else None


# Dropped on every write of an integration, in every process (webhooks.lookups; IntegrationsConfig).
working_integration = Versioned("chatwoot-integrations", _working_integration_load)


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
