"""Delivery statistics of a session's instance webhooks (seed 002 b, "Webhook statistics reply").

Counted from the outbox rows of the last 7 days (deliveries of kind `instance` created in the window,
found through the index on (session, kind, created_at)), in a fixed number of queries whatever the volume:

* `queued`: deliveries not finished yet (pending, waiting for a retry, or being sent);
* `attempts`: POSTs made; `ok` those answered below 400; `clientError` those answered 4xx other than
  408 and 429 (final, not retried); `failed` timeouts, connection errors, 408, 429 and 5xx (retried);
* `avgMs`: the mean duration of the attempts; `last` and `recent` (at most 20, newest first) the latest
  attempts;
* `queue`: outbox-wide counts (every session and kind, which the same workers serve): `waiting`
  (pending or waiting for a retry), `active` (being sent), `failed` (dead letters).
"""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

from django.db.models import Avg, Count, Q
from django.utils import timezone

from messaging.models import Session
from webhooks.instance import configured_urls, instance_config_of
from webhooks.models import Delivery, DeliveryAttempt

WINDOW = timedelta(days=7)
RECENT = 20

_OK = Q(status_code__lt=400, error="")
_CLIENT_ERROR = Q(status_code__gte=400, status_code__lt=500) & ~Q(status_code__in=[408, 429])


def attempt_outcome(status_code: int | None, error: str) -> str:
    """`ok`, `clientError` or `failed`, as the counters count them."""
    if status_code is not None and status_code < 400 and not error:
        return "ok"
    if status_code is not None and 400 <= status_code < 500 and status_code not in (408, 429):
        return "clientError"
    return "failed"


def _iso(moment: Any) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _attempt_row(attempt: dict[str, Any]) -> dict[str, Any]:
    return {
        "ts": _iso(attempt["finished_at"]),
        "status": attempt["status_code"],
        "duration": attempt["duration_ms"],
        "error": attempt["error"] or None,
        "outcome": attempt_outcome(attempt["status_code"], attempt["error"]),
        "event": attempt["delivery__event__name"],
    }


def instance_statistics(*, session: Session) -> dict[str, Any]:
    """The `data` of the statistics reply (five queries, the session already loaded)."""
    since = timezone.now() - WINDOW
    config = instance_config_of(session)
    deliveries = Delivery.objects.filter(session=session, kind=Delivery.Kind.INSTANCE, created_at__gte=since)
    queued = deliveries.filter(
        status__in=[Delivery.Status.PENDING, Delivery.Status.FAILED, Delivery.Status.SENDING]
    ).count()

    attempts = DeliveryAttempt.objects.filter(
        delivery__session=session, delivery__kind=Delivery.Kind.INSTANCE, delivery__created_at__gte=since
    )
    counts = attempts.aggregate(
        attempts=Count("id"),
        ok=Count("id", filter=_OK),
        client_error=Count("id", filter=_CLIENT_ERROR),
        avg_ms=Avg("duration_ms"),
    )
    recent = list(
        attempts.order_by("-finished_at", "-id").values(
            "finished_at", "status_code", "duration_ms", "error", "delivery__event__name"
        )[:RECENT]
    )
    queue = Delivery.objects.aggregate(
        waiting=Count("id", filter=Q(status__in=[Delivery.Status.PENDING, Delivery.Status.FAILED])),
        active=Count("id", filter=Q(status=Delivery.Status.SENDING)),
        failed=Count("id", filter=Q(status=Delivery.Status.DEAD)),
    )

    rows = [_attempt_row(attempt) for attempt in recent]
    last = None
    if rows:
        newest = rows[0]
        last = {
            "ts": newest["ts"],
            "status": newest["status"],
            "ms": newest["duration"],
            "outcome": newest["outcome"],
        }
    urls = configured_urls(config)
    return {
        "official": bool(session.official),
        "webhook": {
            "allowNumber": config.allow_number,
            "webhookFormat": config.webhook_format,
            "configured": urls,
            "anyUrl": bool(urls),
        },
        "delivery": {
            "queued": queued,
            "attempts": counts["attempts"],
            "ok": counts["ok"],
            "clientError": counts["client_error"],
            "failed": counts["attempts"] - counts["ok"] - counts["client_error"],
            "avgMs": round(counts["avg_ms"] or 0),
            "last": last,
            "recent": rows,
        },
        "queue": {**queue, "scope": "worker-global"},
    }
