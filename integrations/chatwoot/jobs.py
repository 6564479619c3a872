"""The mirror's jobs: a client of the job system (jobs.ordered), `MirrorJob` rows the truth,
Celery hints only saying "drain this chat".

The outbox runs them with the same guarantees as webhook deliveries, for work that is several Chatwoot
calls rather than one POST: written in the transaction of what caused them and hinted on commit, a lost
hint found again by the sweeper (beat); order per chat (only a chat's oldest unfinished job runs); a
short claim lease (PONTE_CHATWOOT_CLAIM_LEASE_SECONDS, 8 s) renewed while a job runs; retries on the
registered-webhook schedule (scaled by PONTE_WEBHOOK_RETRY_DELAY_SCALE) up to `max_attempts`, then a
dead letter, visible and resendable in the admin. What this module says is the client's part: what one
attempt does (integrations.chatwoot.runner), that a refusal repeating cannot change (a 4xx, a disabled
integration) is dead at once, and how a chat is hinted.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery import signature
from django.db import IntegrityError, transaction

from core.metrics import Reading
from integrations.chatwoot.models import MirrorJob
from jobs import ordered
from jobs.metrics import table_readings
from jobs.table import JobTable

logger = logging.getLogger(__name__)

DRAIN_TASK = "integrations.chatwoot.drain"
SWEEP_TASK = "integrations.chatwoot.sweep"


class JobRefused(Exception):
    """The job cannot succeed by being repeated (it becomes a dead letter at once)."""


TABLE = JobTable(
    MirrorJob,
    finished=MirrorJob.Status.DONE,
    finished_at="finished_at",
    lease_setting="PONTE_CHATWOOT_CLAIM_LEASE_SECONDS",
    name="chatwoot",
)


def hint(integration_id: int, chat: str, *, countdown: float = 0) -> None:
    """Ask a worker to drain one chat. A failed publish is logged: the sweeper finds the job."""
    try:
        signature(DRAIN_TASK, args=[integration_id, chat]).apply_async(
            countdown=countdown if countdown > 0 else None
        )
    except Exception:  # the broker is away: the row waits in the database for the sweeper
        logger.warning("Could not hint chat %s of Chatwoot integration %s", chat, integration_id)


def job_record(
    *,
    integration_id: int,
    direction: str,
    kind: str,
    chat: str,
    payload: dict[str, Any],
    dedupe_key: str | None = None,
) -> MirrorJob | None:
    """Record a job in the caller's transaction, hinted on commit; None when `dedupe_key` was seen."""
    try:
        with transaction.atomic():
            job = MirrorJob.objects.create(
                integration_id=integration_id,
                direction=direction,
                kind=kind,
                chat=chat,
                payload=payload,
                dedupe_key=dedupe_key,
            )
    except IntegrityError:
        return None  # the same event already arrived (account webhook and inbox webhook)
    transaction.on_commit(lambda: hint(integration_id, chat), robust=True)
    return job


class MirrorQueue:
    """The mirror's jobs as the outbox sees them: their table, a group is a chat of an integration,
    and how a chat is hinted (integrations.chatwoot.runner adds what an attempt does)."""

    table = TABLE
    group_by = ("integration_id", "chat")

    def hint(self, group: tuple[Any, ...], *, countdown: float = 0) -> None:
        integration_id, chat = group
        hint(integration_id, chat, countdown=countdown)


QUEUE = MirrorQueue()


def sweep(*, grace_seconds: float = 15) -> int:
    """Hint every chat with a job due for longer than the grace period or held past its lease."""
    return ordered.sweep(QUEUE, grace_seconds=grace_seconds)


def collect() -> list[Reading]:
    """The mirror's gauges at scrape time: ponte_chatwoot_queue_depth, ponte_chatwoot_dead_letters."""
    return table_readings(
        TABLE,
        "ponte_chatwoot",
        due_help="Chatwoot mirror jobs due and not yet run.",
        dead_help="Chatwoot mirror dead letters kept (7 days).",
    )


def next_lapse_in() -> float | None:
    """Seconds until the oldest claim now held lapses, unless renewed (None: nothing is claimed)."""
    return TABLE.next_lapse_in()


DONE_RETENTION = timedelta(days=1)
DEAD_RETENTION = timedelta(days=7)


def jobs_purge() -> int:
    """Delete jobs done more than a day ago and dead letters kept more than 7 days; how many."""
    return ordered.purge(QUEUE, finished_kept=DONE_RETENTION, dead_kept=DEAD_RETENTION)


def jobs_resend(job_ids: list[int]) -> int:
    """Give dead letters one more attempt each (in their chat's order); how many were queued."""
    return ordered.resend(QUEUE, job_ids)
