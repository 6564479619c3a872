"""The event stream's jobs: a client of the job system (jobs.ordered), `StreamJob` rows the truth,
Celery hints only saying "publish this conversation's events".

The same guarantees as webhook deliveries and the Chatwoot mirror's jobs: a job is written in the
transaction of its event (emit()) and hinted on commit; a lost hint is found again by the sweeper (the
webhooks sweep, every 5 s, and each worker as it starts); order per conversation, a group being
(session, chat): only a conversation's oldest unpublished event is published, so one waiting for the
broker holds the later ones back; a short claim lease renewed while a publish is on its way. A failed
publish (broker away, refused, not confirmed) is retried on the stream's schedule (0, 1, 2, 4, 8, 16,
then every 30 s) for as long as it takes: 10,000 attempts, over three days, before it becomes a dead
letter (resendable in the admin).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any
from uuid import UUID

from celery import signature
from django.conf import settings
from django.db import transaction
from prometheus_client import Counter

from core.metrics import Reading
from jobs import ordered
from jobs.lease import Keeper
from jobs.metrics import table_readings
from jobs.policy import DeliveryPolicy, Outcome
from jobs.table import JobTable
from webhooks.models import Event, StreamJob
from webhooks.outbox.hints import broker_breaker
from webhooks.outbox.posting import render_body
from webhooks.stream import publisher

logger = logging.getLogger(__name__)

DRAIN_TASK = "webhooks.stream.drain"

PUBLISHED = Counter("ponte_event_stream_published", "Events published on the event stream (confirmed).")
PUBLISH_FAILURES = Counter(
    "ponte_event_stream_publish_failures", "Publishes to the event stream that failed (retried later)."
)

# Retried until the broker is back; each delay scaled by PONTE_WEBHOOK_RETRY_DELAY_SCALE.
SCHEDULE = DeliveryPolicy(
    timeout_seconds=5.0, default_attempts=10_000, delays=(0, 1, 2, 4, 8, 16, 30), retry_client_errors=True
)

TABLE = JobTable(
    StreamJob,
    finished=StreamJob.Status.PUBLISHED,
    finished_at="published_at",
    lease_setting="PONTE_EVENT_STREAM_CLAIM_LEASE_SECONDS",
    name="stream",
)


def enabled() -> bool:
    return bool(settings.PONTE_EVENT_STREAM_URL)


def routing_key(session_id: Any, event_name: str) -> str:
    return f"{session_id}.{event_name}"


def hint(session_id: Any, chat: str, *, countdown: float = 0) -> None:
    """Ask a worker to publish one conversation's events. A failed publish of the hint is logged: the
    sweeper finds the job."""
    if not broker_breaker.available():
        return
    try:
        signature(DRAIN_TASK, args=[str(session_id), chat]).apply_async(
            countdown=countdown if countdown > 0 else None
        )
    except Exception as error:  # Celery's broker is away: the row waits in the database
        broker_breaker.failed(error)
        logger.warning("Could not hint the event stream for chat %r of session %s", chat, session_id)


def job_record(event: Event, payload: dict[str, Any]) -> StreamJob:
    """Record the event's stream job in the caller's transaction (emit()), hinted on commit."""
    job = StreamJob.objects.create(
        session_id=event.session_id,
        chat=event.chat,
        event_id=event.pk,
        routing_key=routing_key(event.session_id, event.name),
        payload=payload,
        max_attempts=SCHEDULE.default_attempts,
        next_attempt_at=event.created_at,
    )
    transaction.on_commit(lambda: hint(event.session_id, event.chat), robust=True)
    return job


class StreamQueue:
    """The stream's jobs as the outbox sees them: their table, a group is a conversation of a session,
    and how it is hinted."""

    table = TABLE
    group_by = ("session_id", "chat")

    def hint(self, group: tuple[Any, ...], *, countdown: float = 0) -> None:
        session_id, chat = group
        hint(session_id, chat, countdown=countdown)


class StreamPublisher(StreamQueue):
    """One attempt publishes one event (webhooks.stream.publisher); every failure is the broker's
    passing state, so it is retried."""

    schedule = SCHEDULE
    keeper = Keeper(TABLE)

    def attempt(self, job: StreamJob) -> None:
        headers = {"x-ponte-event": job.payload.get("event", ""), "x-ponte-session-id": str(job.session_id)}
        try:
            publisher.publish(
                render_body(job.payload),
                routing_key=job.routing_key,
                message_id=str(job.event_id),
                headers=headers,
            )
        except Exception:
            PUBLISH_FAILURES.inc()
            raise
        PUBLISHED.inc()

    def judge(self, error: Exception) -> Outcome:
        logger.warning("Event stream publish failed, will retry: %s", error)
        return "retry"


QUEUE = StreamQueue()
CLIENT = StreamPublisher()


def chat_drain(session_id: str, chat: str) -> int:
    """Publish the conversation's due events in order, one at a time; how many were tried."""
    return ordered.drain(CLIENT, (UUID(str(session_id)), chat))


def sweep(*, grace_seconds: float | None = None) -> int:
    """Hint every conversation with an event due for longer than the grace period or held past its
    lease; nothing while the stream is off."""
    if not enabled():
        return 0
    grace = float(settings.PONTE_WEBHOOK_SWEEP_GRACE_SECONDS if grace_seconds is None else grace_seconds)
    return ordered.sweep(QUEUE, grace_seconds=grace)


def waiting_count() -> int:
    """Events not yet published, due or waiting for their retry (a gauge: grows while the broker is away)."""
    return StreamJob.objects.filter(status__in=ordered.UNFINISHED).count()


def collect() -> list[Reading]:
    """The stream's gauges at scrape time (PONTE_METRICS_COLLECTORS)."""
    return [
        *table_readings(
            TABLE,
            "ponte_event_stream",
            due_help="Event stream publishes due and not yet tried.",
            dead_help="Event stream dead letters kept (7 days).",
        ),
        Reading(
            "ponte_event_stream_waiting",
            "Events not yet published on the event stream (due, or waiting for the broker).",
            values={(): waiting_count()},
        ),
    ]


PUBLISHED_RETENTION = timedelta(days=1)
DEAD_RETENTION = timedelta(days=7)


def jobs_purge() -> int:
    """Delete jobs published more than a day ago and dead letters kept more than 7 days; how many."""
    return ordered.purge(QUEUE, finished_kept=PUBLISHED_RETENTION, dead_kept=DEAD_RETENTION)


def jobs_resend(job_ids: list[int]) -> int:
    """Give dead letters one more attempt each (in their conversation's order); how many were queued."""
    return ordered.resend(QUEUE, job_ids)
