"""Celery tasks: thin, they take ids and call one service. Deliveries are routed to the `webhooks` queue
(CELERY_TASK_ROUTES)."""

from __future__ import annotations

from celery import shared_task

from webhooks.outbox import deliveries as outbox
from webhooks.outbox import drains, retention
from webhooks.outbox.hints import DELIVER_TASK, SWEEP_TASK
from webhooks.registered import replay
from webhooks.stream import jobs as stream


@shared_task(name=DELIVER_TASK, acks_late=True, ignore_result=True)
def deliver(delivery_id: int, target_url: str = "") -> str:
    # Hints published before the target URL travelled with them carry the id alone.
    return drains.delivery_attempt(delivery_id=delivery_id, target_url=target_url)


@shared_task(name=SWEEP_TASK, ignore_result=True)
def sweep_deliveries(grace_seconds: float | None = None) -> int:
    # The event stream's jobs are swept with the deliveries (one beat entry, one start-up sweep).
    swept = outbox.deliveries_sweep(grace_seconds=grace_seconds)
    replay.replays_resume()  # a replay whose feeder was lost goes on
    return swept + stream.sweep(grace_seconds=grace_seconds)


@shared_task(name=replay.FEED_TASK, ignore_result=True)
def replay_feed(replay_id: str) -> None:
    # One step of a replay: the next chunk once the last one was sent (webhooks.registered.replay).
    if replay.replay_feed(replay_id=replay_id):
        replay_feed.apply_async(args=[replay_id], countdown=replay.tick_seconds())


@shared_task(name="webhooks.purge_dead_letters", ignore_result=True)
def purge_dead_letters() -> int:
    return outbox.dead_letters_purge()


# A run stops after this long and the next one goes on, so a first purge of a large backlog does not hold
# a worker for hours.
PURGE_SECONDS_PER_RUN = 600


@shared_task(name="webhooks.purge_delivered", ignore_result=True)
def purge_delivered() -> int:
    # The hourly clean-up also forgets the message routes' idempotency keys older than 24 hours.
    from messaging.idempotency import idempotency_purge

    idempotency_purge()
    purged = retention.deliveries_purge(dead_letters=False, max_seconds=PURGE_SECONDS_PER_RUN).total
    return purged + stream.QUEUE.purge()


@shared_task(name=stream.DRAIN_TASK, acks_late=True, ignore_result=True)
def stream_drain(session_id: str, chat: str) -> int:
    return stream.QUEUE.drain((session_id, chat))
