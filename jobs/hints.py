"""Hints: the Celery messages that wake a worker for a queue's group. A hint carries no state (the job
rows are the truth): a lost one costs time until the sweeper, never a job.

Tasks are published by name (`signature`), so the job system imports no client's tasks. While the
broker is unreachable hints are not even tried (`broker_breaker`): the rows wait in the database for
the sweeper, and a request that records jobs does not wait on a dead broker each time.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from celery import signature

from core.breaker import Breaker

logger = logging.getLogger(__name__)

broker_breaker = Breaker("Celery broker")


def wire(values: Sequence[Any]) -> list[Any]:
    """A group as task arguments (JSON: a UUID travels as its text)."""
    return [str(value) if isinstance(value, UUID) else value for value in values]


def publish(task: str, args: Sequence[Any], *, countdown: float = 0, breaker: bool = True) -> bool:
    """Publish one hint (after `countdown` seconds); False when it could not be (logged, never raised).
    `breaker`: skip it while the broker is known to be away."""
    if breaker and not broker_breaker.available():
        return False
    try:
        signature(task, args=wire(args)).apply_async(countdown=countdown if countdown > 0 else None)
    except Exception as error:  # the broker is away: the rows wait in the database for the sweeper
        if breaker:
            broker_breaker.failed(error)
        logger.warning("Could not hint %s %s; the sweeper will find its jobs", task, list(args))
        return False
    return True
