"""What each kind of mirror job does (called by jobs.drain on a worker)."""

from __future__ import annotations

from collections.abc import Callable

from integrations.chatwoot import inbound, jobs, mirror
from integrations.chatwoot.models import ChatwootIntegration, MirrorJob


def _run(job: MirrorJob) -> None:
    integration = ChatwootIntegration.objects.select_related("session").get(pk=job.integration_id)
    if not integration.enabled or integration.status != ChatwootIntegration.Status.OK:
        raise jobs.JobRefused(
            f"the integration is {'disabled' if not integration.enabled else integration.status}"
        )
    handlers: dict[str, Callable[[], None]] = {
        "message": lambda: mirror.message_mirror(integration, job.payload),
        "message_ack": lambda: mirror.ack_mirror(integration, job.payload),
        "presence": lambda: mirror.presence_mirror(integration, job.chat, job.payload),
        "agent_message": lambda: inbound.agent_message_send(integration, job.chat, job.payload),
        "agent_delete": lambda: inbound.agent_delete_send(integration, job.chat, job.payload),
        "agent_typing": lambda: inbound.agent_typing_send(integration, job.chat, bool(job.payload.get("on"))),
    }
    handler = handlers.get(job.kind)
    if handler is None:
        raise jobs.JobRefused(f"unknown job kind {job.kind!r}")
    handler()


def chat_drain(integration_id: int, chat: str) -> int:
    return jobs.drain(integration_id, chat, _run)
