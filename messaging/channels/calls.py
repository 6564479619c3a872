"""Graph API calls an inbound message asks for (the customer's profile, the read receipt of a session
that reads messages at once), made after the message is recorded: jobs of the job system, never an HTTP
request inside the recording transaction or under the session's row lock (issue 40 item 4).

The recording turn (messaging.channels.queue) writes a `ChannelCall` row in its transaction and hints it
on commit; a worker makes the call, in order per chat (jobs.queue.Queue), retried on `SCHEDULE` while the
Graph API is away or throttling, dead at once when Meta refuses it (a refused receipt is logged, the
message is kept all the same). A slow Graph API delays only the receipts, not the next items of the
session (docs/decisions/0014-inbound-queue.md).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from core.metrics import Reading
from jobs.policy import DeliveryPolicy, Outcome
from jobs.queue import Gauges, Kept, Queue
from jobs.table import JobTable
from messaging.channels.engine import GraphChannelEngine
from messaging.channels.models import ChannelCall
from messaging.channels.profiles import profile_fetch
from messaging.engines.base import EngineRateLimited, EngineUnavailableError
from messaging.models import Session

logger = logging.getLogger(__name__)

DRAIN_TASK = "messaging.channels.call_drain"

# The registered webhooks' pace: a receipt a minute and a half late is still worth sending.
SCHEDULE = DeliveryPolicy(
    timeout_seconds=10.0, default_attempts=5, delays=(0, 1, 4, 16, 64), retry_client_errors=False
)


def _attempt(job: ChannelCall) -> None:
    """One attempt makes one call: a customer's profile lookup, or a read receipt."""
    if job.kind == ChannelCall.Kind.PROFILE:
        profile_fetch(job.session_id, job.chat)
        return
    GraphChannelEngine().mark_read_typing(str(job.session_id), job.chat, job.message_id, typing=False)


def _judge(error: Exception) -> Outcome:
    """The Graph API away or throttling is retried, a refusal is final."""
    if isinstance(error, EngineUnavailableError | EngineRateLimited):
        logger.warning("Graph API call failed, will retry: %s", error)
        return "retry"
    logger.warning("Graph API call refused: %s", error)
    return "give_up"


QUEUE = Queue(
    table=JobTable(
        ChannelCall,
        finished=ChannelCall.Status.DONE,
        finished_at="finished_at",
        lease_setting="PONTE_CHANNEL_INBOUND_CLAIM_LEASE_SECONDS",
        name="channel-calls",
    ),
    group_by=("session_id", "chat"),  # a chat of a session, in order
    schedule=SCHEDULE,
    drain_task=DRAIN_TASK,
    attempt=_attempt,
    judge=_judge,
    gauges=Gauges(
        "ponte_channel_calls",
        due_help="Graph API calls of inbound messages (read receipts) due and not yet made.",
        dead_help="Graph API calls of inbound messages given up (7 days).",
    ),
    kept=Kept(finished=timedelta(days=1), dead=timedelta(days=7)),
)


def call_record(*, session: Session, kind: str, chat: str, message_id: str) -> ChannelCall:
    """Record a call in the caller's transaction, hinted on commit."""
    return QUEUE.enqueue(session=session, kind=kind, chat=chat, message_id=message_id)


def calls_resend(call_ids: list[int]) -> int:
    """Give dead letters one more attempt each (in their chat's order); how many were queued."""
    return QUEUE.resend(call_ids)


def collect() -> list[Reading]:
    return QUEUE.collect()
