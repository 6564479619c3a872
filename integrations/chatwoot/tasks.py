"""Celery tasks of the Chatwoot mirror: thin, they take ids and call one service."""

from __future__ import annotations

from celery import shared_task

from integrations.chatwoot import jobs, runner


@shared_task(name=jobs.DRAIN_TASK, acks_late=True, ignore_result=True)
def drain(integration_id: int, chat: str) -> int:
    return runner.chat_drain(integration_id, chat)


@shared_task(name=jobs.SWEEP_TASK, ignore_result=True)
def sweep(grace_seconds: float = 15) -> int:
    return jobs.sweep(grace_seconds=grace_seconds)


@shared_task(name="integrations.chatwoot.purge", ignore_result=True)
def purge() -> int:
    return jobs.jobs_purge()
