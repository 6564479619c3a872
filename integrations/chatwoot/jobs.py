"""The mirror's jobs: a client of the job system (jobs.queue.Queue), `MirrorJob` rows the truth,
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
from typing import Any

from django.db import IntegrityError, transaction

from core.metrics import Reading
from integrations.chatwoot.models import MirrorJob
from jobs.policy import DeliveryPolicy
from jobs.queue import Gauges, Kept, Queue
from jobs.table import JobTable

logger = logging.getLogger(__name__)

DRAIN_TASK = "integrations.chatwoot.drain"
SWEEP_TASK = "integrations.chatwoot.sweep"


class JobRefused(Exception):
    """The job cannot succeed by being repeated (it becomes a dead letter at once)."""


# The registered webhooks' schedule (webhooks.outbox.policy.REGISTERED), the mirror's own copy so the
# integration needs nothing of the webhooks' outbox: 10 s, 5 attempts after 0, 1, 4, 16, 64 s.
MIRROR_SCHEDULE = DeliveryPolicy(
    timeout_seconds=10.0, default_attempts=5, delays=(0, 1, 4, 16, 64), retry_client_errors=True
)

QUEUE = Queue(
    table=JobTable(
        MirrorJob,
        finished=MirrorJob.Status.DONE,
        finished_at="finished_at",
        lease_setting="PONTE_CHATWOOT_CLAIM_LEASE_SECONDS",
        name="chatwoot",
    ),
    group_by=("integration_id", "chat"),  # a chat of an integration, in order
    schedule=MIRROR_SCHEDULE,
    drain_task=DRAIN_TASK,
    # What one attempt does needs what records jobs (inbound, mirror): named, resolved at the first drain.
    attempt="integrations.chatwoot.runner.job_run",
    judge="integrations.chatwoot.runner.failure_judge",
    gauges=Gauges(
        "ponte_chatwoot",
        due_help="Chatwoot mirror jobs due and not yet run.",
        dead_help="Chatwoot mirror dead letters kept (7 days).",
    ),
    kept=Kept(),  # done jobs a day, dead letters 7 days
)


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
            return QUEUE.enqueue(
                integration_id=integration_id,
                direction=direction,
                kind=kind,
                chat=chat,
                payload=payload,
                dedupe_key=dedupe_key,
            )
    except IntegrityError:
        return None  # the same event already arrived (account webhook and inbox webhook)


def jobs_resend(job_ids: list[int]) -> int:
    """Give dead letters one more attempt each (in their chat's order); how many were queued."""
    return QUEUE.resend(job_ids)


def collect() -> list[Reading]:
    return QUEUE.collect()
