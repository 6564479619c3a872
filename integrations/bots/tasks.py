"""Celery tasks of the bots: thin, they take ids and call one service."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready

from integrations.bots import jobs


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
    from django.db import connection

    try:
        sweep.apply_async(kwargs={"grace_seconds": 0})
        lapse = jobs.QUEUE.next_lapse_in()
        if lapse is not None:
            sweep.apply_async(kwargs={"grace_seconds": 0}, countdown=lapse + 0.5)
    except Exception:  # the broker or the database is away: beat sweeps once they are back
        logging.getLogger(__name__).warning("Could not schedule the bots' start-up sweep", exc_info=True)
    finally:
        connection.close()
