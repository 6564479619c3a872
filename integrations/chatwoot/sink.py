"""The mirror's event sink: beside the outbox (MESSAGING_EVENT_SINK names both), it records a mirror
job for the session's messages, receipts and the customer's typing when the session has a working
Chatwoot integration. Runs in the transaction of the event, so a rolled-back event mirrors nothing."""

from __future__ import annotations

from functools import cache
from typing import Any
from uuid import UUID

from django.db import connection

from integrations.chatwoot import jobs
from integrations.chatwoot.mirror import chat_of_presence
from integrations.chatwoot.models import ChatwootIntegration, MirrorJob

MIRRORED = {"message", "message_ack", "presence"}


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


def _working_integration(session_id: UUID | str) -> int | None:
    """The session's enabled, set-up integration. Asked on every message, receipt and typing event of
    every session, and almost always answered "none": one plain statement, as the ORM spent more than
    twice the round trip's CPU composing this query each time."""
    value = ChatwootIntegration._meta.get_field("session").target_field.get_db_prep_value(
        UUID(str(session_id)), connection
    )
    with connection.cursor() as cursor:
        cursor.execute(_integration_sql(), [value])
        row = cursor.fetchone()
    return row[0] if row else None


def event_received(
    *, session_id: UUID | str, name: str, data: dict[str, Any], chat: str = "", event_ms: int | None = None
) -> None:
    if name not in MIRRORED:
        return
    integration_id = _working_integration(session_id)
    if integration_id is None:
        return
    if name == "message" and data.get("isHistory"):
        return  # history sync is not live traffic
    key = chat_of_presence(data) if name == "presence" else (chat or str(data.get("chat") or ""))
    if not key:
        return
    job = jobs.job_record(
        integration_id=integration_id,
        direction=MirrorJob.Direction.TO_PLATFORM,
        kind=name,
        chat=key,
        payload={**data, "chat": data.get("chat") or key},
        dedupe_key=f"wa-message:{data['id']}" if name == "message" and data.get("id") else None,
    )
    if job is not None and name == "presence":
        MirrorJob.objects.filter(pk=job.pk).update(max_attempts=1)  # stale typing is worth nothing
