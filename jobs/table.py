"""A client's job table: the rows one kind of job lives in, and what the job system does to any of them.

Every job table has the same columns under the same names: `status` (pending, sending, failed, a
finished status of its own, dead), `attempt_count`, `max_attempts`, `next_attempt_at`, `claimed_at`,
`claim_token`, `dead_at` and `last_error` (the mirror's and the stream's tables take them from
jobs.columns.JobColumns; deliveries, older, declare their own). The job system keeps one table per
client rather than one table for every job: a delivery's columns (target, signature secret, dispatch
id, response excerpts) and a mirror job's (integration, chat, order per chat) share nothing else, and
each table keeps the partial indexes its own claim reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import Model
from django.utils import timezone

PENDING, SENDING, FAILED, DEAD = "pending", "sending", "failed", "dead"
WAITING = (PENDING, FAILED)


@dataclass(frozen=True)
class JobTable:
    """`model`: the rows; `finished`: the status of a job done (with its time in `finished_at`);
    `lease_setting`: the setting holding the claim lease in seconds; `name`: for threads and logs."""

    model: type[Model]
    finished: str
    finished_at: str
    lease_setting: str
    name: str

    def lease_seconds(self) -> float:
        return float(getattr(settings, self.lease_setting))

    def lease(self) -> timedelta:
        return timedelta(seconds=self.lease_seconds())

    def renew(self, tokens: list[str]) -> int:
        """Move the claims `tokens` still hold to now (the lease keeper's beat); how many rows."""
        held = self.model.objects.filter(claim_token__in=tokens, status=SENDING)
        return held.update(claimed_at=timezone.now())

    def next_lapse_in(self) -> float | None:
        """Seconds until the oldest claim now held lapses, unless renewed (None: nothing is claimed). A
        starting worker sweeps then: what a killed worker held is free from that moment."""
        held = self.model.objects.filter(status=SENDING).order_by("claimed_at")
        oldest = held.values_list("claimed_at", flat=True).first()
        if oldest is None:
            return None
        return max(0.0, (oldest + self.lease() - timezone.now()).total_seconds())

    def due_count(self) -> int:
        """Jobs due and not yet attempted (a metrics gauge; the partial index of waiting rows)."""
        return self.model.objects.filter(status__in=WAITING, next_attempt_at__lte=timezone.now()).count()

    def dead_count(self) -> int:
        return self.model.objects.filter(status=DEAD).count()
