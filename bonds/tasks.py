"""Celery tasks (thin). The daily refresh is a django-celery-beat PeriodicTask created by migration
0002, so staff can change its schedule in the admin."""

from __future__ import annotations

from celery import shared_task

from bonds.refresh import bonds_refresh


@shared_task(name="bonds.tasks.refresh_bonds")
def refresh_bonds(trigger: str = "beat") -> int:
    return bonds_refresh(trigger=trigger).pk
