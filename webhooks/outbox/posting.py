"""The deliveries' part as a client of the outbox: what one attempt does (sign and POST the body on the
target's keep-alive connection, net.transport) and how its outcome is judged (the delivery kind's
policy: registered or instance webhook, webhooks.outbox.policy). The batch engine around it (claim,
lease, record, retry hints, slots) is webhooks.outbox.deliveries.
"""

from __future__ import annotations

import json
import logging
import traceback
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from net.headers import unsendable
from net.transport import PostResult, UnsafeTarget, safe_post
from webhooks.meta import stamp_dispatch
from webhooks.models import Delivery, DeliveryAttempt
from webhooks.outbox.policy import policy_for
from webhooks.outbox.store import Claimed, Outcome
from webhooks.signing import delivery_headers

logger = logging.getLogger(__name__)

WEBHOOK_DELETED = "Webhook deleted before delivery."
# The recorded error of a delivery whose request raised while it was built or sent (webhooks.delivery_errors).
COULD_NOT_SEND = "could not be sent"
HEADER_REFUSED = "custom header refused, fix the webhook's headers"


def render_body(payload: Any) -> bytes:
    """The exact bytes POSTed and signed; the same on every attempt."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Sent:
    """One delivery of a batch and what became of its POST (`result` None: nothing was sent)."""

    delivery: Claimed
    result: PostResult | None
    started_at: datetime
    finished_at: datetime


def attempt(delivery: Claimed) -> Sent:
    """One attempt: sign and POST the delivery's body (`result` None: its webhook is gone).

    Never raises: whatever goes wrong while this one request is built or sent is its failed attempt
    (recorded, retried, dead-lettered and counted for auto-disable like any other), so one bad row
    cannot stop the batch or hold back the other deliveries to its target."""
    if delivery.kind == Delivery.Kind.REGISTERED and delivery.webhook_id is None:
        now = timezone.now()
        return Sent(delivery, None, now, now)
    sent_at = timezone.now()
    try:
        result = _post(delivery, sent_at)
    except Exception as exc:
        result = PostResult(status=None, body_excerpt="", duration_ms=0, error=_could_not_send(delivery, exc))
    return Sent(delivery, result, sent_at, timezone.now())


def _post(delivery: Claimed, sent_at: datetime) -> PostResult:
    # The custom headers are checked again here, with the rules they were set under (net.headers): one
    # stored before those were tightened fails its own delivery instead of raising in the HTTP client.
    problem = unsendable(delivery.headers)
    if problem is not None:
        error = f"{HEADER_REFUSED}: {problem}"
        return PostResult(status=None, body_excerpt="", duration_ms=0, error=error)
    # The messenger ordering block says when this attempt was dispatched (webhooks.meta).
    body = render_body(stamp_dispatch(delivery.payload, int(sent_at.timestamp() * 1000)))
    # The webhook's custom headers first: Ponte's own may not be overridden (reserved names are refused
    # when they are set, webhooks.registered.custom_headers).
    headers = {
        **delivery.headers,
        **delivery_headers(
            secret=delivery.secret or "",
            msg_id=delivery.dispatch_id,
            body=body,
            sent_at=sent_at,
            previous_secret=delivery.previous_secret,
        ),
    }
    try:
        return safe_post(delivery.target_url, body=body, headers=headers, timeout=delivery.timeout_seconds)
    except UnsafeTarget as exc:  # the address was refused when connecting: a failed attempt
        return PostResult(status=None, body_excerpt="", duration_ms=0, error=f"Refused target: {exc}")


def _could_not_send(delivery: Claimed, exc: Exception) -> str:
    """The recorded error of a request that raised, and a log line saying where. Neither carries the
    exception's text: it can quote a header value, which may be a credential."""
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f"{frame.filename}:{frame.lineno}" if frame else "?"
    logger.error("Delivery %s could not be sent: %s raised at %s", delivery.pk, type(exc).__name__, where)
    return f"{COULD_NOT_SEND}: {type(exc).__name__} while the request was built or sent"


def judged(sent: Sent) -> tuple[str, Outcome, DeliveryAttempt | None, float | None]:
    """A sent delivery's outcome: (outcome name, new state, attempt row, retry delay). Times are its own
    POST's, not the batch's."""
    delivery, result, finished_at = sent.delivery, sent.result, sent.finished_at
    if result is None:  # the registered webhook was deleted: nothing to sign with, nothing sent
        state = Outcome(
            Delivery.Status.DEAD, delivery.attempt_count, None, WEBHOOK_DELETED, dead_at=finished_at
        )
        return "dead", state, None, None
    policy = policy_for(delivery.kind, delivery.retry_schedule)
    number = delivery.attempt_count + 1
    verdict = policy.outcome(status=result.status, error=result.error)
    settled = policy.settle(
        verdict, number=number, max_attempts=delivery.max_attempts, last_chance=delivery.resend_pending
    )
    outcome, delay = settled.outcome, settled.delay
    error = (result.error or "")[:500]
    attempt = DeliveryAttempt(
        delivery_id=delivery.pk,
        number=number,
        scheduled_at=delivery.scheduled_at,
        started_at=sent.started_at,
        finished_at=finished_at,
        status_code=result.status,
        duration_ms=result.duration_ms,
        response_excerpt=(result.body_excerpt or "")[: DeliveryAttempt.RESPONSE_EXCERPT_CHARS],
        error=error,
        outcome=outcome,
        requested_by_id=delivery.resend_requested_by_id if delivery.resend_pending else None,
    )
    if outcome == "delivered":
        state = Outcome(Delivery.Status.DELIVERED, number, result.status, error, delivered_at=finished_at)
    elif outcome == "retry" and delay is not None:
        retry_at = finished_at + timedelta(seconds=delay)
        state = Outcome(Delivery.Status.FAILED, number, result.status, error, next_attempt_at=retry_at)
    else:
        state = Outcome(Delivery.Status.DEAD, number, result.status, error, dead_at=finished_at)
    return outcome, state, attempt, delay
