"""The event stream's jobs: a client of the job system (jobs.queue.Queue), `StreamJob` rows the truth,
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
from typing import Any

from django.conf import settings
from prometheus_client import Counter

from core.metrics import Reading
from jobs.policy import DeliveryPolicy, Outcome
from jobs.queue import Gauges, Kept, Queue
from jobs.table import JobTable
from webhooks.models import Event, StreamJob
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


def enabled() -> bool:
    return bool(settings.PONTE_EVENT_STREAM_URL)


def routing_key(session_id: Any, event_name: str) -> str:
    return f"{session_id}.{event_name}"


def job_record(event: Event, payload: dict[str, Any]) -> StreamJob:
    """Record the event's stream job in the caller's transaction (emit()), hinted on commit."""
    return QUEUE.enqueue(
        session_id=event.session_id,
        chat=event.chat,
        event_id=event.pk,
        routing_key=routing_key(event.session_id, event.name),
        payload=payload,
        next_attempt_at=event.created_at,
    )


def _attempt(job: StreamJob) -> None:
    """One attempt publishes one event (webhooks.stream.publisher)."""
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


def _judge(error: Exception) -> Outcome:
    """Every failure is the broker's passing state, so it is retried."""
    logger.warning("Event stream publish failed, will retry: %s", error)
    return "retry"


QUEUE = Queue(
    table=JobTable(
        StreamJob,
        finished=StreamJob.Status.PUBLISHED,
        finished_at="published_at",
        lease_setting="PONTE_EVENT_STREAM_CLAIM_LEASE_SECONDS",
        name="stream",
    ),
    group_by=("session_id", "chat"),  # a conversation of a session, in order
    schedule=SCHEDULE,
    drain_task=DRAIN_TASK,
    attempt=_attempt,
    judge=_judge,
    gauges=Gauges(
        "ponte_event_stream",
        due_help="Event stream publishes due and not yet tried.",
        dead_help="Event stream dead letters kept (7 days).",
    ),
    kept=Kept(),  # published a day, dead letters 7 days
    breaker=True,  # events are recorded on the request's path: no wait on a broker known to be away
)


def sweep(*, grace_seconds: float | None = None) -> int:
    """Hint every conversation with an event due for longer than the grace period or held past its
    lease; nothing while the stream is off."""
    if not enabled():
        return 0
    grace = float(settings.PONTE_WEBHOOK_SWEEP_GRACE_SECONDS if grace_seconds is None else grace_seconds)
    return QUEUE.sweep(grace_seconds=grace)


def collect() -> list[Reading]:
    """The stream's gauges at scrape time (PONTE_METRICS_COLLECTORS)."""
    return [
        *QUEUE.collect(),
        Reading(
            "ponte_event_stream_waiting",
            "Events not yet published on the event stream (due, or waiting for the broker).",
            values={(): QUEUE.waiting_count()},
        ),
    ]


def jobs_resend(job_ids: list[int]) -> int:
    """Give dead letters one more attempt each (in their conversation's order); how many were queued."""
    return QUEUE.resend(job_ids)
