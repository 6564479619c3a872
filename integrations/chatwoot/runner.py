"""What each kind of mirror job does, and how a failure is judged: the mirror's part as a client of the
job system (its queue, integrations.chatwoot.jobs.QUEUE, names these two functions; jobs.drain runs them
on a worker)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from integrations.chatwoot import calls, inbound, jobs, mirror, mirror_polls_edits
from integrations.chatwoot.client import ChatwootError
from integrations.chatwoot.models import ChatwootIntegration, MirrorJob
from jobs.policy import Outcome
from messaging.engines.events import (
    CallEvent,
    EngineEvent,
    MessageAckEvent,
    MessageEditedEvent,
    MessageEvent,
    PollVoteEvent,
    PresenceEvent,
    event_from_data,
)

logger = logging.getLogger(__name__)

E = TypeVar("E", bound=EngineEvent)


def _typed(kind: type[E], job: MirrorJob) -> E:
    event = event_from_data(job.kind, job.payload)
    if not isinstance(event, kind):
        raise jobs.JobRefused(f"a {job.kind} job does not hold a {kind.name} event")
    return event


def job_run(job: MirrorJob) -> None:
    """One attempt runs one job."""
    integration = ChatwootIntegration.objects.select_related("session").get(pk=job.integration_id)
    if not integration.enabled or integration.status != ChatwootIntegration.Status.OK:
        raise jobs.JobRefused(
            f"the integration is {'disabled' if not integration.enabled else integration.status}"
        )
    handlers: dict[str, Callable[[], None]] = {
        # Customer → platform jobs keep the engine event's wire form: typed again here.
        "message": lambda: mirror.message_mirror(integration, _typed(MessageEvent, job)),
        "message_ack": lambda: mirror.ack_mirror(integration, _typed(MessageAckEvent, job)),
        "presence": lambda: mirror.presence_mirror(integration, job.chat, _typed(PresenceEvent, job)),
        "message_edited": lambda: mirror_polls_edits.edit_mirror(
            integration, _typed(MessageEditedEvent, job)
        ),
        "poll_vote": lambda: mirror_polls_edits.vote_mirror(integration, _typed(PollVoteEvent, job)),
        "call": lambda: calls.call_mirror(integration, job.chat, _typed(CallEvent, job)),
        "agent_message": lambda: inbound.agent_message_send(integration, job.chat, job.payload),
        "agent_delete": lambda: inbound.agent_delete_send(integration, job.chat, job.payload),
        "agent_typing": lambda: inbound.agent_typing_send(integration, job.chat, bool(job.payload.get("on"))),
    }
    handler = handlers.get(job.kind)
    if handler is None:
        raise jobs.JobRefused(f"unknown job kind {job.kind!r}")
    handler()


def failure_judge(error: Exception) -> Outcome:
    """A refusal repeating cannot change (a 4xx, a disabled integration, an unknown kind) is dead at
    once, anything else retried on the registered-webhook schedule."""
    if isinstance(error, jobs.JobRefused) or (isinstance(error, ChatwootError) and error.final):
        return "give_up"
    if not isinstance(error, (ChatwootError, jobs.JobRefused)):
        logger.error("Chatwoot mirror job failed", exc_info=error)
    return "retry"
