"""The deliveries' upkeep as a queue of the job system (webhooks.outbox.deliveries.DeliveryQueue):
resend (the same delivery, the same x-webhook-id, one attempt), sweep (what is overdue or stuck, hinted
again), purge (dead letters past their retention, webhooks.outbox.retention)."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from webhooks.models import Delivery, Webhook
from webhooks.outbox import fifo, retention
from webhooks.outbox.hints import enqueue_on_commit
from webhooks.outbox.store import store

logger = logging.getLogger(__name__)

DEAD_LETTER_RETENTION = retention.DEAD_LETTER_RETENTION
WAITING = [Delivery.Status.PENDING, Delivery.Status.FAILED]

RESENDABLE = [Delivery.Status.DEAD, Delivery.Status.DELIVERED]


@transaction.atomic
def deliveries_resend(*, deliveries: QuerySet[Delivery], requested_by: Any) -> tuple[int, int]:
    """Queue one new attempt (same x-webhook-id) for each dead or delivered delivery; (queued, skipped).

    Deliveries still on their way are skipped (they will be attempted anyway), and so are those whose
    registered webhook was deleted (there is nothing left to sign them with). A registered webhook's
    delivery goes to the webhook's current URL, not the one it was first sent to (a customer fixes the
    URL, then resends), and is signed with its current secret and headers (read when it is claimed).
    """
    now = timezone.now()
    total = deliveries.count()
    candidates = deliveries.filter(status__in=RESENDABLE).exclude(
        kind=Delivery.Kind.REGISTERED, webhook__isnull=True
    )
    ids = list(candidates.values_list("pk", flat=True))
    current_url = Webhook.objects.filter(pk=OuterRef("webhook_id")).values("url")[:1]
    Delivery.objects.filter(pk__in=ids, kind=Delivery.Kind.REGISTERED).update(
        target_url=Subquery(current_url)
    )
    hints = list(Delivery.objects.filter(pk__in=ids).values_list("pk", "target_url"))
    queued = Delivery.objects.filter(pk__in=ids, status__in=RESENDABLE).update(
        status=Delivery.Status.PENDING,
        next_attempt_at=now,
        resend_pending=True,
        resend_requested_by=requested_by,
        resend_requested_at=now,
        dead_at=None,
    )
    enqueue_on_commit(hints)
    return queued, total - queued


def deliveries_sweep(*, grace_seconds: float | None = None, lease_seconds: float | None = None) -> int:
    """Re-enqueue deliveries due for longer than the grace period or stuck in `sending` past their
    lease; how many. A row re-enqueued has its due time moved to now, so it is swept at most once per
    grace period while its message is on the way."""
    now = timezone.now()
    grace = timedelta(
        seconds=settings.PONTE_WEBHOOK_SWEEP_GRACE_SECONDS if grace_seconds is None else grace_seconds
    )
    lease = timedelta(
        seconds=settings.PONTE_WEBHOOK_CLAIM_LEASE_SECONDS if lease_seconds is None else lease_seconds
    )
    limit = int(settings.PONTE_WEBHOOK_SWEEP_BATCH)
    overdue = store().sweepable("overdue", before=now - grace, limit=limit)
    stuck = store().sweepable("stuck", before=now - lease, limit=limit)
    fifo.queued_sweep(older_than=grace, limit=limit)  # a chat left queued by a race (outbox.fifo)
    with transaction.atomic():
        Delivery.objects.filter(pk__in=[pk for pk, _ in overdue], status__in=WAITING).update(
            next_attempt_at=now
        )
        # One hint per target (its drain sends them all), whatever the flag says: it may be a lost hint's.
        enqueue_on_commit([*overdue, *stuck], force=True)
    if overdue or stuck:
        logger.info("Sweeper re-enqueued %d overdue and %d stuck deliveries", len(overdue), len(stuck))
    return len(overdue) + len(stuck)


def dead_letters_purge(*, older_than: timedelta = DEAD_LETTER_RETENTION) -> int:
    """Delete dead letters kept longer than the retention (7 days) and their attempts, and deliveries held
    for a disabled webhook as long, in small batches (webhooks.outbox.retention); how many dead letters."""
    totals = retention.deliveries_purge(delivered=False, events=False, dead_kept_for=older_than)
    return totals.dead_letters
