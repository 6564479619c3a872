"""The bots' jobs: a queue of the job system (jobs.queue.Queue), `BotJob` rows the truth, Celery hints
only saying "drain this chat of this bot".

Jobs of one (bot, chat) run one at a time in order, so the echo of a bot's own reply (an `outgoing`
job recorded while the answer is still running) is looked at only once the answer has noted the ids it
sent. An answer waits `debounce_seconds` before it is due; messages arriving in the meantime join it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.metrics import Reading
from integrations.bots.models import BotJob
from jobs.policy import DeliveryPolicy
from jobs.queue import Gauges, Kept, Queue
from jobs.table import JobTable

DRAIN_TASK = "integrations.bots.drain"
SWEEP_TASK = "integrations.bots.sweep"
PURGE_TASK = "integrations.bots.purge"

# A bot's answer is worth retrying for about a minute and a half; later it would answer a stale chat.
SCHEDULE = DeliveryPolicy(
    timeout_seconds=10.0, default_attempts=5, delays=(0, 2, 8, 20, 60), retry_client_errors=False, jitter=0.1
)

QUEUE = Queue(
    table=JobTable(
        BotJob,
        finished=BotJob.Status.DONE,
        finished_at="finished_at",
        lease_setting="PONTE_BOT_CLAIM_LEASE_SECONDS",
        name="bots",
    ),
    group_by=("bot_id", "chat"),  # a chat of a bot, in order
    schedule=SCHEDULE,
    drain_task=DRAIN_TASK,
    # What one attempt does sends messages, whose events reach the sink that records jobs: named,
    # resolved at the first drain.
    attempt="integrations.bots.runner.job_run",
    judge="integrations.bots.runner.failure_judge",
    gauges=Gauges(
        "ponte_bot_jobs",
        due_help="Bot answers due and not yet run.",
        dead_help="Bot answers given up (kept 7 days).",
    ),
    kept=Kept(),  # done jobs a day, dead letters 7 days
)


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
    transaction.on_commit(lambda: QUEUE.hint((bot_id, chat), countdown=debounce_seconds), robust=True)
    return job


def outgoing_record(*, bot_id: int, chat: str, message_id: str) -> BotJob:
    """Record a message the session sent in a chat where the bot talks, in the caller's transaction."""
    return QUEUE.enqueue(bot_id=bot_id, chat=chat, kind=BotJob.Kind.OUTGOING, messages=[{"id": message_id}])


def jobs_resend(job_ids: list[int]) -> int:
    """Give dead letters one more attempt each (in their chat's order); how many were queued."""
    return QUEUE.resend(job_ids)


def collect() -> list[Reading]:
    return QUEUE.collect()
