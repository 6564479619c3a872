"""Celery tasks of the bots: thin, they take ids and call one service."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready

from integrations.bots import jobs
from jobs.startup import start_up_sweep


@shared_task(name=jobs.DRAIN_TASK, acks_late=True, ignore_result=True)
def drain(bot_id: int, chat: str) -> int:
    return jobs.QUEUE.drain((bot_id, chat))


@shared_task(name=jobs.SWEEP_TASK, ignore_result=True)
def sweep(grace_seconds: float = 15) -> int:
    return jobs.QUEUE.sweep(grace_seconds=grace_seconds)


@shared_task(name=jobs.PURGE_TASK, ignore_result=True)
def purge() -> int:
    return jobs.QUEUE.purge()


@worker_ready.connect
def _sweep_on_start(sender=None, **kwargs) -> None:
    """A starting worker sweeps the bots' jobs at once and when the oldest claim held now lapses."""
    start_up_sweep(sweep, [jobs.QUEUE], what="the bots' jobs")
