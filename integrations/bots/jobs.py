"""The bots' jobs: a client of the job system (jobs.ordered), `BotJob` rows the truth, Celery hints
only saying "drain this chat of this bot".

Jobs of one (bot, chat) run one at a time in order, so the echo of a bot's own reply (an `outgoing`
job recorded while the answer is still running) is looked at only once the answer has noted the ids it
sent. An answer waits `debounce_seconds` before it is due; messages arriving in the meantime join it.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery import signature
from django.db import transaction
from django.utils import timezone

from core.metrics import Reading
from integrations.bots.models import BotJob
from jobs import ordered
from jobs.metrics import table_readings
from jobs.policy import DeliveryPolicy
from jobs.table import JobTable

logger = logging.getLogger(__name__)

DRAIN_TASK = "integrations.bots.drain"
SWEEP_TASK = "integrations.bots.sweep"
PURGE_TASK = "integrations.bots.purge"

# A bot's answer is worth retrying for about a minute and a half; later it would answer a stale chat.
SCHEDULE = DeliveryPolicy(
    timeout_seconds=10.0, default_attempts=5, delays=(0, 2, 8, 20, 60), retry_client_errors=False, jitter=0.1
)

TABLE = JobTable(
    BotJob,
    finished=BotJob.Status.DONE,
    finished_at="finished_at",
    lease_setting="PONTE_BOT_CLAIM_LEASE_SECONDS",
    name="bots",
)


def hint(bot_id: int, chat: str, *, countdown: float = 0) -> None:
    """Ask a worker to drain one chat of a bot. A failed publish is logged: the sweeper finds the job."""
    try:
        signature(DRAIN_TASK, args=[bot_id, chat]).apply_async(countdown=countdown if countdown > 0 else None)
    except Exception:  # the broker is away: the row waits in the database for the sweeper
        logger.warning("Could not hint chat %s of bot %s", chat, bot_id)


def answer_record(*, bot_id: int, debounce_seconds: int, chat: str, item: dict[str, Any]) -> BotJob:
    """Record the customer's message for the bot to answer, in the caller's transaction: joined to the
    chat's answer not yet started when there is one (its wait starts again), else a new answer due
    after the debounce window. Hinted on commit, when the answer is due."""
    due = timezone.now() + timedelta(seconds=debounce_seconds)
    waiting = (
        BotJob.objects.select_for_update()
        .filter(bot_id=bot_id, chat=chat, kind=BotJob.Kind.ANSWER, status=BotJob.Status.PENDING)
        .filter(attempt_count=0, claim_token="")
        .order_by("-id")
        .first()
    )
    if waiting is not None and debounce_seconds > 0:
        waiting.messages = [*waiting.messages, item]
        waiting.next_attempt_at = due
        waiting.save(update_fields=["messages", "next_attempt_at"])
        job = waiting
    else:
        job = BotJob.objects.create(
            bot_id=bot_id,
            chat=chat,
            kind=BotJob.Kind.ANSWER,
            messages=[item],
            next_attempt_at=due,
            max_attempts=SCHEDULE.default_attempts,
        )
    transaction.on_commit(lambda: hint(bot_id, chat, countdown=debounce_seconds), robust=True)
    return job


def outgoing_record(*, bot_id: int, chat: str, message_id: str) -> BotJob:
    """Record a message the session sent in a chat where the bot talks, in the caller's transaction."""
    job = BotJob.objects.create(
        bot_id=bot_id,
        chat=chat,
        kind=BotJob.Kind.OUTGOING,
        messages=[{"id": message_id}],
        max_attempts=SCHEDULE.default_attempts,
    )
    transaction.on_commit(lambda: hint(bot_id, chat), robust=True)
    return job


class BotQueue:
    """The bots' jobs as the job system sees them: their table, a group is a chat of a bot."""

    table = TABLE
    group_by = ("bot_id", "chat")

    def hint(self, group: tuple[Any, ...], *, countdown: float = 0) -> None:
        bot_id, chat = group
        hint(bot_id, chat, countdown=countdown)


QUEUE = BotQueue()


def sweep(*, grace_seconds: float = 15) -> int:
    return ordered.sweep(QUEUE, grace_seconds=grace_seconds)


def next_lapse_in() -> float | None:
    return TABLE.next_lapse_in()


def jobs_purge() -> int:
    """Delete jobs done more than a day ago and dead letters kept more than 7 days; how many."""
    return ordered.purge(QUEUE, finished_kept=timedelta(days=1), dead_kept=timedelta(days=7))


def jobs_resend(job_ids: list[int]) -> int:
    """Give dead letters one more attempt each (in their chat's order); how many were queued."""
    return ordered.resend(QUEUE, job_ids)


def collect() -> list[Reading]:
    """The bots' gauges at scrape time (PONTE_METRICS_COLLECTORS)."""
    return table_readings(
        TABLE,
        "ponte_bot_jobs",
        due_help="Bot answers due and not yet run.",
        dead_help="Bot answers given up (kept 7 days).",
    )
