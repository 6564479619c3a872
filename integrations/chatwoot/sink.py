"""The mirror's event sink: beside the outbox (MESSAGING_EVENT_SINK names both), it records a mirror
job for the session's messages, receipts and the customer's typing when the session has a working
Chatwoot integration. Runs in the transaction of the event, so a rolled-back event mirrors nothing."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from integrations.chatwoot import jobs
from integrations.chatwoot.mirror import chat_of_presence
from integrations.chatwoot.models import ChatwootIntegration, MirrorJob

MIRRORED = {"message", "message_ack", "presence"}


def event_received(
    *, session_id: UUID | str, name: str, data: dict[str, Any], chat: str = "", event_ms: int | None = None
) -> None:
    if name not in MIRRORED:
        return
    integration_id = (
        ChatwootIntegration.objects.filter(session_id=session_id, enabled=True, inbox_id__isnull=False)
        .values_list("pk", flat=True)
        .first()
    )
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
