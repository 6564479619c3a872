"""A starting worker's sweep, for every queue of the job system.

A worker that starts (often one replacing a killed one) sweeps its queues at once, and again as soon as
the oldest claim held now lapses (a dead worker's claims lapse one lease after their last renewal), so
those jobs do not wait for beat. Sweeping is idempotent: many sweeps, one hint per group. Each client
connects its own handler to Celery's `worker_ready` (where Celery discovers its tasks) and calls this.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Protocol

logger = logging.getLogger(__name__)


class Lapsing(Protocol):
    def next_lapse_in(self) -> float | None:
        """Seconds until the oldest claim now held lapses; None when nothing is claimed."""


def start_up_sweep(sweep_task: Any, queues: Iterable[Lapsing], *, what: str) -> None:
    """Schedule `sweep_task` (a Celery task taking `grace_seconds`) now and at the queues' first lapse.
    The broker or the database away: logged, and beat sweeps once they are back."""
    from django.db import connection

    try:
        sweep_task.apply_async(kwargs={"grace_seconds": 0})
        lapses = [lapse for lapse in (queue.next_lapse_in() for queue in queues) if lapse is not None]
        if lapses:
            sweep_task.apply_async(kwargs={"grace_seconds": 0}, countdown=min(lapses) + 0.5)
    except Exception:
        logger.warning("Could not schedule the start-up sweep of %s", what, exc_info=True)
    finally:
        connection.close()  # the main process runs no tasks: do not keep its connection open
