"""Inbound items as jobs: a signed webhook body is stored before it is answered, then recorded by a worker.

The view (views.py) checks the signature, decodes the JSON and stores the body here cut into bodies of
the same shape of at most `BATCH_ITEMS` items (messaging.channels.split; `ChannelInboundBatch`, one
INSERT for the whole body), hinting the session on commit; it answers 200 without parsing an item, so a
body of thousands of items costs the web thread a decode, a cut and an insert
(docs/decisions/0014-inbound-queue.md).

A worker records a session's rows in order, one row per turn (`session_drain`): the row's body is
cleaned (core.signed_json), parsed (inbound.py) and recorded through `receive.channel_events_receive` in
one transaction, then the session is hinted again if rows remain, so its next turn queues behind the
hints of every other session: one session's 9,000 items cannot starve another's. A row is a job of the
job system (jobs.queue.Queue, per session): claimed with a short lease renewed while it runs, retried on
`SCHEDULE`, dead after `max_attempts`, swept (beat, and a starting worker) when a hint was lost, purged
a day after it was done. Processing is at least once: a row run twice (its worker killed between commit
and settle) records no message twice, because the receive path skips a message it already has.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from core.metrics import Reading
from core.signed_json import signed_json_load
from jobs.policy import DeliveryPolicy, Outcome
from jobs.queue import Gauges, Kept, Queue
from jobs.table import JobTable
from messaging.channels.inbound import parse
from messaging.channels.models import ChannelInboundBatch
from messaging.channels.profiles import items_named
from messaging.channels.receive import channel_events_receive
from messaging.channels.split import body_split
from messaging.models import Session

logger = logging.getLogger(__name__)

DRAIN_TASK = "messaging.channels.inbound_drain"
SWEEP_TASK = "messaging.channels.inbound_sweep"
PURGE_TASK = "messaging.channels.inbound_purge"

# Items per row, which is also one worker turn and one transaction: about 4 statements an item, so a
# turn holds the session's row lock for a fraction of a second and another session's turn comes soon
# (on SQLite, another request's write waits for the turn in progress: decision 0014).
BATCH_ITEMS = 50
# Items one body may carry. Meta documents webhook notifications "aggregated and sent in a batch with a
# maximum of 1000 updates" (Graph API, Webhooks: Event Notifications); ten times that leaves room for
# updates carrying several items, and fits the body limit (PONTE_MAX_BODY_BYTES, 8 MB: ~500 bytes an
# item). A body past it is not Meta's: refused whole (413), nothing stored.
MAX_ITEMS_PER_BODY = 10_000

# A row that fails (the database away, a bug) is retried on this schedule, then kept as a dead letter
# so the session's later rows are not held back; each delay scaled by PONTE_WEBHOOK_RETRY_DELAY_SCALE.
SCHEDULE = DeliveryPolicy(
    timeout_seconds=60.0, default_attempts=10, delays=(0, 1, 4, 16, 64), retry_client_errors=True
)


class TooManyItems(Exception):
    """A body with more than MAX_ITEMS_PER_BODY items."""


def items_store(*, session: Session, body: Any) -> int:
    """Store one decoded body's items in rows of at most BATCH_ITEMS (messaging.channels.split), in the
    caller's transaction, hinted on commit; how many items. Raises TooManyItems past
    MAX_ITEMS_PER_BODY (nothing stored)."""
    parts = body_split(session.provider, body, size=BATCH_ITEMS)
    total = sum(count for _, count in parts)
    if total > MAX_ITEMS_PER_BODY:
        raise TooManyItems(f"{total} items in one body, at most {MAX_ITEMS_PER_BODY}")
    if not parts:
        return 0
    rows = [
        ChannelInboundBatch(
            session=session,
            body=json.dumps(part, separators=(",", ":")),  # ASCII: lone surrogates and NUL escaped
            item_count=count,
            max_attempts=SCHEDULE.default_attempts,
        )
        for part, count in parts
    ]
    QUEUE.enqueue_many(rows)
    return total


def _attempt(job: ChannelInboundBatch) -> None:
    """One attempt records one row's items (receive.channel_events_receive, one transaction)."""
    session = Session.objects.get(pk=job.session_id)
    body = signed_json_load(job.body.encode(), source=f"{session.provider} webhook of {session.pk}")
    items = items_named(session, parse(session.provider, body))  # cached names; no Graph API call
    channel_events_receive(session=session, items=items)


def _judge(error: Exception) -> Outcome:
    """Every failure is retried on the schedule."""
    logger.warning("Recording inbound items failed, will retry: %s", error)
    return "retry"


QUEUE = Queue(
    table=JobTable(
        ChannelInboundBatch,
        finished=ChannelInboundBatch.Status.DONE,
        finished_at="finished_at",
        lease_setting="PONTE_CHANNEL_INBOUND_CLAIM_LEASE_SECONDS",
        name="channel-inbound",
    ),
    group_by=("session_id",),  # a session, in order
    schedule=SCHEDULE,
    drain_task=DRAIN_TASK,
    attempt=_attempt,
    judge=_judge,
    gauges=Gauges(
        "ponte_channel_inbound",
        due_help="Inbound channel item batches due and not yet recorded.",
        dead_help="Inbound channel item batches given up (7 days).",
    ),
    kept=Kept(),  # done rows a day, dead letters 7 days
    turn=1,  # one row per turn: the session is hinted again behind every other session's hints
)


def session_drain(session_id: str) -> int:
    """One turn of the session: record its oldest due row; hinted again while rows remain."""
    return QUEUE.drain((session_id,))


def batches_resend(batch_ids: list[int]) -> int:
    """Give dead letters one more attempt each (in their session's order); how many were queued."""
    return QUEUE.resend(batch_ids)


def collect() -> list[Reading]:
    return QUEUE.collect()
