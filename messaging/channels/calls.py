"""Graph API calls an inbound message asks for (the read receipt of a session that reads messages at
once), made after the message is recorded: jobs of the job system, never an HTTP request inside the
recording transaction or under the session's row lock (issue 40 item 4).

The recording turn (messaging.channels.queue) writes a `ChannelCall` row in its transaction and hints it
on commit; a worker makes the call, in order per chat (jobs.ordered), retried on `SCHEDULE` while the
Graph API is away or throttling, dead at once when Meta refuses it (a refused receipt is logged, the
message is kept all the same). A slow Graph API delays only the receipts, not the next items of the
session (docs/decisions/0014-inbound-queue.md).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any
from uuid import UUID

from celery import signature
from django.db import transaction

from core.metrics import Reading
from jobs import ordered
from jobs.lease import Keeper
from jobs.metrics import table_readings
from jobs.policy import DeliveryPolicy, Outcome
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

TABLE = JobTable(
    ChannelCall,
    finished=ChannelCall.Status.DONE,
    finished_at="finished_at",
    lease_setting="PONTE_CHANNEL_INBOUND_CLAIM_LEASE_SECONDS",
    name="channel-calls",
)


def hint(session_id: Any, chat: str, *, countdown: float = 0) -> None:
    """Ask a worker to make one chat's calls. A failed publish is logged: the sweeper finds the rows."""
    try:
        signature(DRAIN_TASK, args=[str(session_id), chat]).apply_async(
            countdown=countdown if countdown > 0 else None
        )
    except Exception:  # the broker is away: the rows wait in the database for the sweeper
        logger.warning("Could not hint the Graph API calls of chat %r of session %s", chat, session_id)


def call_record(*, session: Session, kind: str, chat: str, message_id: str) -> ChannelCall:
    """Record a call in the caller's transaction, hinted on commit."""
    call = ChannelCall.objects.create(
        session=session, kind=kind, chat=chat, message_id=message_id, max_attempts=SCHEDULE.default_attempts
    )
    transaction.on_commit(lambda: hint(session.pk, chat), robust=True)
    return call


class CallQueue:
    """The calls as the job system sees them: their table, a group is a chat of a session."""

    table = TABLE
    group_by = ("session_id", "chat")

    def hint(self, group: tuple[Any, ...], *, countdown: float = 0) -> None:
        session_id, chat = group
        hint(session_id, chat, countdown=countdown)


class CallMaker(CallQueue):
    """One attempt makes one call; the Graph API away or throttling is retried, a refusal is final."""

    schedule = SCHEDULE
    keeper = Keeper(TABLE)

    def attempt(self, job: ChannelCall) -> None:
        if job.kind == ChannelCall.Kind.PROFILE:
            profile_fetch(job.session_id, job.chat)
            return
        GraphChannelEngine().mark_read_typing(str(job.session_id), job.chat, job.message_id, typing=False)

    def judge(self, error: Exception) -> Outcome:
        if isinstance(error, EngineUnavailableError | EngineRateLimited):
            logger.warning("Graph API call failed, will retry: %s", error)
            return "retry"
        logger.warning("Graph API call refused: %s", error)
        return "give_up"


QUEUE = CallQueue()
MAKER = CallMaker()


def chat_drain(session_id: str, chat: str) -> int:
    """Make the chat's due calls in order, one at a time; how many were tried."""
    return ordered.drain(MAKER, (UUID(str(session_id)), chat))


def sweep(*, grace_seconds: float = 15) -> int:
    return ordered.sweep(QUEUE, grace_seconds=grace_seconds)


def next_lapse_in() -> float | None:
    return TABLE.next_lapse_in()


def calls_purge() -> int:
    """Delete calls made more than a day ago and dead letters kept more than 7 days; how many."""
    return ordered.purge(QUEUE, finished_kept=timedelta(days=1), dead_kept=timedelta(days=7))


def calls_resend(call_ids: list[int]) -> int:
    """Give dead letters one more attempt each (in their chat's order); how many were queued."""
    return ordered.resend(QUEUE, call_ids)


def collect() -> list[Reading]:
    """The calls' gauges at scrape time (PONTE_METRICS_COLLECTORS)."""
    return table_readings(
        TABLE,
        "ponte_channel_calls",
        due_help="Graph API calls of inbound messages (read receipts) due and not yet made.",
        dead_help="Graph API calls of inbound messages given up (7 days).",
    )
