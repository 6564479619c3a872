"""Celery tasks of messaging: thin, they take ids and call one service (the official channels' inbound
queue, messaging.channels.queue, and the Graph API calls it leaves for after commit, messaging.channels.
calls; one sweep and one purge for both)."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready

from jobs.startup import start_up_sweep
from messaging.channels import calls, queue


@shared_task(name=queue.DRAIN_TASK, acks_late=True, ignore_result=True)
def inbound_drain(session_id: str) -> int:
    return queue.session_drain(session_id)


@shared_task(name=calls.DRAIN_TASK, acks_late=True, ignore_result=True)
def call_drain(session_id: str, chat: str) -> int:
    return calls.QUEUE.drain((session_id, chat))


@shared_task(name=queue.SWEEP_TASK, ignore_result=True)
def inbound_sweep(grace_seconds: float = 15) -> int:
    return queue.QUEUE.sweep(grace_seconds=grace_seconds) + calls.QUEUE.sweep(grace_seconds=grace_seconds)


@shared_task(name=queue.PURGE_TASK, ignore_result=True)
def inbound_purge() -> int:
    return queue.QUEUE.purge() + calls.QUEUE.purge()


@worker_ready.connect
def _sweep_on_start(sender=None, **kwargs) -> None:
    """A starting worker sweeps the inbound rows and the calls at once and at their first lapse."""
    start_up_sweep(inbound_sweep, [queue.QUEUE, calls.QUEUE], what="the official channels' inbound rows")
