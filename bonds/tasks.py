"""Celery tasks (thin). The daily refresh is a django-celery-beat PeriodicTask created by migration
0002, so staff can change its schedule in the admin."""

from __future__ import annotations

import logging

from celery import shared_task

from bonds.models import RefreshRun
from bonds.refresh import bonds_refresh

logger = logging.getLogger(__name__)


@shared_task(name="bonds.tasks.refresh_bonds")
def refresh_bonds(trigger: str = "beat") -> int:
    """The refresh; its RefreshRun records the outcome, and a run that is not a full success is
    logged (a warning when partial, an error when every provider failed) naming the failed sources,
    since task results are not kept."""
    run = bonds_refresh(trigger=trigger)
    if run.status == RefreshRun.Status.PARTIAL:
        logger.warning("Bond refresh partial: %s", run.summary)
    elif run.status == RefreshRun.Status.FAILED:
        logger.error("Bond refresh failed: %s", run.summary)
    return run.pk
