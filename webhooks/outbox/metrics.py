"""What the outbox tells operators: a log line and a count per delivery attempt (the queue gauges at
scrape time are jobs.metrics.table_readings).

An attempt's log line carries the request id stored on its delivery (the request that caused the event),
the delivery and dispatch ids, the kind, the attempt number, the outcome, the receiver's status and the
time taken, and the target's host: never its full URL (a query string may hold a customer's token), the
body or the secret.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from core import metrics
from jobs.policy import is_client_error
from webhooks.outbox.policy import policy_for

logger = logging.getLogger("ponte.delivery")

# The outbox's outcome names → the metric's (a retry is a failed attempt that will be tried again).
_OUTCOMES = {"delivered": "delivered", "retry": "failed", "dead": "dead"}


def _metric_outcome(kind: str, outcome: str, status: int | None) -> str:
    if outcome == "dead" and is_client_error(status) and not policy_for(kind).retry_client_errors:
        return "client_error"  # a 4xx an instance webhook does not retry
    return _OUTCOMES[outcome]


def attempts_recorded(sent: Iterable[Any], outcomes: dict[int, str]) -> None:
    """After a batch was recorded (webhooks.outbox): one count and one log line per attempt.

    `sent` holds the outbox's `Sent` items (a claimed delivery, its POST's result and times)."""
    for item in sent:
        delivery, result = item.delivery, item.result
        outcome = outcomes.get(delivery.pk)
        if outcome not in _OUTCOMES:
            continue  # not recorded here: its claim had lapsed and another drain holds it
        status = result.status if result is not None else None
        label = _metric_outcome(delivery.kind, outcome, status)
        seconds = None
        if label == "delivered" and delivery.created_at is not None and not delivery.resend_pending:
            seconds = (item.finished_at - delivery.created_at).total_seconds()
        metrics.delivery_observed(kind=delivery.kind, outcome=label, seconds=seconds)
        _log_attempt(item, label, status)


def _log_attempt(item: Any, outcome: str, status: int | None) -> None:
    if not logger.isEnabledFor(logging.INFO):
        return
    delivery, result = item.delivery, item.result
    number = delivery.attempt_count + (1 if result is not None else 0)
    duration_ms = result.duration_ms if result is not None else 0
    host = urlsplit(delivery.target_url).hostname or ""
    logger.info(
        "delivery %s (%s) attempt %s to %s: %s, status %s, %sms [request %s]",
        delivery.pk,
        delivery.kind,
        number,
        host,
        outcome,
        status if status is not None else "-",
        duration_ms,
        delivery.request_id or "-",
        extra={
            "request_id": delivery.request_id or "-",  # its own, not the hint's
            "fields": {
                "event": "delivery_attempt",
                "delivery_id": delivery.pk,
                "dispatch_id": delivery.dispatch_id,
                "kind": delivery.kind,
                "attempt": number,
                "outcome": outcome,
                "status": status,
                "duration_ms": duration_ms,
                "target_host": host,
                "error": bool(result is None or result.error),
            },
        },
    )
