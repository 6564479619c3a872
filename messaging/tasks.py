"""Celery tasks of messaging: thin, they take ids and call one service (the official channels' inbound
queue, messaging.channels.queue, and the Graph API calls it leaves for after commit, messaging.channels.
calls; one sweep and one purge for both)."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready

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
    """A worker that starts (often one replacing a killed one) sweeps the inbound rows at once, and
    again as soon as the oldest claim held now lapses, so they do not wait for beat (as the webhooks
    outbox and the Chatwoot mirror do)."""
    from django.db import connection

    try:
        inbound_sweep.apply_async(kwargs={"grace_seconds": 0})
        lapses = [
            lapse for lapse in (queue.QUEUE.next_lapse_in(), calls.QUEUE.next_lapse_in()) if lapse is not None
        ]
        if lapses:
            lapse = min(lapses)
            inbound_sweep.apply_async(kwargs={"grace_seconds": 0}, countdown=lapse + 0.5)
    except Exception:  # the broker or the database is away: beat sweeps once they are back
        logging.getLogger(__name__).warning("Could not schedule the inbound start-up sweep", exc_info=True)
    finally:
        connection.close()  # the main process runs no tasks: do not keep its connection open
