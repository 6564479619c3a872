"""Replay: a registered webhook's deliveries of a time window sent again, to its current target.

Each replayed delivery keeps its original `webhook-id` (receivers deduplicate on it) and is sent to the
webhook's current URL, signed with its current secret and carrying its current headers, like a resend
(webhooks.outbox.deliveries.deliveries_resend): one new attempt each, no new retry chain; one that
fails is a dead letter again. Deliveries still on their way are left to it.

Bounded so one request cannot queue an unbounded backlog: a window of at most 7 days (what the outbox
keeps) and at most 10,000 deliveries; the error names the limit.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from core.errors import ValidationFailed
from webhooks.models import Delivery, Webhook
from webhooks.outbox.deliveries import RESENDABLE, deliveries_resend
from webhooks.registered.test_event import require_active

MAX_WINDOW = timedelta(days=7)
MAX_DELIVERIES = 10_000


def _window_clean(since: datetime, until: datetime | None) -> tuple[datetime, datetime]:
    until = until or timezone.now()
    if until <= since:
        raise ValidationFailed("until: must be after since")
    if until - since > MAX_WINDOW:
        raise ValidationFailed("since: the replay window (since to until) is at most 7 days")
    return since, until


def webhook_replay(
    *, webhook: Webhook, since: datetime, until: datetime | None = None, only_failed: bool = False
) -> int:
    """Queue the webhook's finished deliveries created in [since, until) again (`only_failed`: dead
    letters only); how many were queued."""
    require_active(webhook)
    since, until = _window_clean(since, until)
    statuses = [Delivery.Status.DEAD] if only_failed else RESENDABLE
    chosen = Delivery.objects.filter(
        webhook=webhook, created_at__gte=since, created_at__lt=until, status__in=statuses
    )
    count = chosen.count()
    if count > MAX_DELIVERIES:
        raise ValidationFailed(
            f"since: {count} deliveries in the window, at most {MAX_DELIVERIES} per replay; "
            "narrow since and until"
        )
    queued, _skipped = deliveries_resend(deliveries=chosen, requested_by=None)
    return queued
