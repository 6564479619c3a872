"""The columns every job table shares (jobs.table reads them by these names): an
abstract model, so a client's table declares only its own columns, its statuses and its indexes."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class JobColumns(models.Model):
    attempt_count = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    claim_token = models.CharField(max_length=32, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    dead_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
