"""Delivery statistics of a session's instance webhooks (GET /instances/<key>/instance/webhook/statistics).

Counted from the outbox rows of the last 7 days (deliveries of kind `instance` created in the window,
found through the index on (session, kind, created_at)), in a fixed number of queries whatever the volume:

* `queued`: deliveries not finished yet (pending, waiting for a retry, or being sent);
* `attempts`: POSTs made; `ok` those answered below 400; `clientError` those answered 4xx other than
  408 and 429 (final, not retried); `failed` timeouts, connection errors, 408, 429 and 5xx (retried).
  Counted from each delivery's row (its attempt count and final state), so a manual resend from the
  admin of a delivery already delivered or refused with a 4xx counts its extra attempt as failed;
* `avgMs`: the mean duration of the attempts;
* `recent`: the latest 20 deliveries, newest first, each with the answer to its latest attempt
  (`status`, `duration`, `error`, `outcome`) or `outcome: "queued"` before its first attempt;
* `last`: the most recent attempt among those deliveries;
* `queue`: outbox-wide counts (every session and kind, which the same workers serve): `waiting`
  (pending or waiting for a retry), `active` (being sent), `failed` (dead letters).

`webhook.anyUrl` false: no instance webhook URL, so nothing is POSTed for the session; its events are
still recorded and go only over the live event socket (`/ws`, webhooks.live).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.timefmt import iso_millis
from jobs.policy import PASSING_CLIENT_ERRORS, is_client_error
from messaging.models import Session
from webhooks.instance.services import configured_urls, instance_config_of
from webhooks.models import Delivery, DeliveryAttempt

WINDOW = timedelta(days=7)
RECENT = 20

WAITING = [Delivery.Status.PENDING, Delivery.Status.FAILED, Delivery.Status.SENDING]
_CLIENT_ERROR = Q(last_status_code__gte=400, last_status_code__lt=500) & ~Q(
    last_status_code__in=PASSING_CLIENT_ERRORS
)


def attempt_outcome(status_code: int | None, error: str) -> str:
    """`ok`, `clientError` or `failed`, as the counters count them."""
    if status_code is not None and status_code < 400 and not error:
        return "ok"
    if is_client_error(status_code):
        return "clientError"
    return "failed"


def _delivery_row(delivery: dict[str, Any]) -> dict[str, Any]:
    """One `recent` entry: a delivery and the answer to its latest attempt."""
    attempted = delivery["attempt_count"] > 0
    moment = delivery["last_finished_at"] if attempted else delivery["created_at"]
    return {
        "id": delivery["dispatch_id"],
        "ts": iso_millis(moment),
        "status": delivery["last_status_code"] if attempted else None,
        "duration": delivery["last_duration_ms"] if attempted else None,
        "error": (delivery["last_error"] or None) if attempted else None,
        "outcome": attempt_outcome(delivery["last_status_code"], delivery["last_error"])
        if attempted
        else "queued",
        "event": delivery["event__name"],
        "attempts": delivery["attempt_count"],
        "state": delivery["status"],
    }


def instance_statistics(*, session: Session) -> dict[str, Any]:
    """The `data` of the statistics reply: three queries (plus one when the session was loaded without
    its configuration joined, as `instance_session_get` does)."""
    since = timezone.now() - WINDOW
    config = instance_config_of(session)
    deliveries = Delivery.objects.filter(session=session, kind=Delivery.Kind.INSTANCE, created_at__gte=since)
    counts = _delivery_counts(deliveries)
    rows = [_delivery_row(delivery) for delivery in _recent_deliveries(deliveries)]
    queue = _queue_counts()
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
            "queued": counts["queued"],
            "attempts": counts["attempts"],
            "ok": counts["ok"],
            "clientError": counts["client_error"],
            "failed": counts["attempts"] - counts["ok"] - counts["client_error"],
            "avgMs": round(counts["total_ms"] / counts["attempts"]) if counts["attempts"] else 0,
            "last": _last_attempt(rows),
            "recent": rows,
        },
        "queue": {**queue, "scope": "worker-global"},
    }


def _delivery_counts(deliveries: QuerySet[Delivery]) -> dict[str, int]:
    """Queued, attempted, ok and client-error counts and the summed durations, in one query.

    Per delivery, from its own row: an instance delivery ends at its first answer below 400 (one ok
    attempt) or its first final 4xx (one client error); every other attempt failed. The durations are
    summed by a correlated subquery on the (delivery, number) index, so no plan ever scans the
    attempts table.
    """
    durations = (
        DeliveryAttempt.objects.filter(delivery=OuterRef("pk"))
        .order_by()
        .values("delivery")
        .annotate(total=Sum("duration_ms"))
        .values("total")
    )
    return deliveries.annotate(attempts_ms=Subquery(durations)).aggregate(
        queued=Count("id", filter=Q(status__in=WAITING)),
        attempts=Coalesce(Sum("attempt_count"), 0),
        ok=Count("id", filter=Q(status=Delivery.Status.DELIVERED)),
        client_error=Count("id", filter=Q(status=Delivery.Status.DEAD) & _CLIENT_ERROR),
        total_ms=Coalesce(Sum("attempts_ms"), 0),
    )


def _recent_deliveries(deliveries: QuerySet[Delivery]) -> list[dict[str, Any]]:
    """The newest deliveries, read backwards along the (session, kind, created_at) index; their latest
    attempt through the (delivery, number) index."""
    latest = DeliveryAttempt.objects.filter(delivery=OuterRef("pk")).order_by("-number")
    return list(
        deliveries.annotate(
            last_finished_at=Subquery(latest.values("finished_at")[:1]),
            last_duration_ms=Subquery(latest.values("duration_ms")[:1]),
        )
        .order_by("-created_at", "-id")
        .values(
            "dispatch_id",
            "created_at",
            "status",
            "attempt_count",
            "last_status_code",
            "last_error",
            "last_finished_at",
            "last_duration_ms",
            "event__name",
        )[:RECENT]
    )


def _queue_counts() -> dict[str, int]:
    """The worker-wide queue. Only the unfinished and dead rows, through the status index: delivered
    rows (the bulk) are skipped."""
    unfinished = [
        Delivery.Status.PENDING,
        Delivery.Status.FAILED,
        Delivery.Status.SENDING,
        Delivery.Status.DEAD,
    ]
    return Delivery.objects.filter(status__in=unfinished).aggregate(
        waiting=Count("id", filter=Q(status__in=[Delivery.Status.PENDING, Delivery.Status.FAILED])),
        active=Count("id", filter=Q(status=Delivery.Status.SENDING)),
        failed=Count("id", filter=Q(status=Delivery.Status.DEAD)),
    )


def _last_attempt(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The newest attempted delivery of `rows`, or None when none was attempted yet."""
    attempted = [row for row in rows if row["attempts"]]
    if not attempted:
        return None
    newest = max(attempted, key=lambda row: row["ts"])
    return {
        "ts": newest["ts"],
        "status": newest["status"],
        "ms": newest["duration"],
        "outcome": newest["outcome"],
    }
