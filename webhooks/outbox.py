"""The delivery side of the outbox: claim, sign, POST, record, retry or dead-letter; sweep; purge; resend.

The `Delivery` row is the truth and the broker only carries hints (a delivery id):

* a worker claims a row with one conditional UPDATE (due and waiting, or `sending` past its lease), so
  two messages for one delivery never send it twice at once, and a killed worker's claim expires;
* the outcome is written only by the holder of the claim (`claim_token`);
* the sweeper re-enqueues rows that are due but were never picked up (a lost message) and rows stuck in
  `sending` (a killed worker), so nothing is lost whatever happens to the broker.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import time
import uuid
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from webhooks.models import Delivery, DeliveryAttempt
from webhooks.policy import policy_for
from webhooks.signing import delivery_headers
from webhooks.transport import PostResult, UnsafeTarget, http_session, safe_post

logger = logging.getLogger(__name__)

DEAD_LETTER_RETENTION = timedelta(days=7)
WAITING = [Delivery.Status.PENDING, Delivery.Status.FAILED]


def render_body(payload: Any) -> bytes:
    """The exact bytes POSTed and signed; the same on every attempt."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


# --- Enqueueing ----------------------------------------------------------------------------------


def enqueue(delivery_id: int, *, countdown: float = 0) -> None:
    """Publish a hint for one delivery. A failed publish is logged, not raised: the sweeper finds it."""
    from webhooks.tasks import deliver

    try:
        deliver.apply_async(args=[delivery_id], countdown=countdown if countdown > 0 else None)
    except Exception:  # the broker is down: the row is safe in the database
        logger.exception("Could not enqueue delivery %s; the sweeper will pick it up", delivery_id)


def enqueue_on_commit(delivery_ids: Iterable[int], *, countdown: float = 0) -> None:
    ids = list(delivery_ids)
    if ids:
        transaction.on_commit(lambda: [enqueue(pk, countdown=countdown) for pk in ids], robust=True)


# --- One attempt ---------------------------------------------------------------------------------


def _lease() -> timedelta:
    return timedelta(seconds=float(settings.PONTE_WEBHOOK_CLAIM_LEASE_SECONDS))


def _claim(delivery: Delivery) -> str | None:
    """Take the delivery with one conditional UPDATE; the claim token, or None if not ours to send."""
    now = timezone.now()
    token = uuid.uuid4().hex
    due = Q(status__in=WAITING, next_attempt_at__lte=now)
    stuck = Q(status=Delivery.Status.SENDING, claimed_at__lt=now - _lease())
    taken = Delivery.objects.filter(Q(pk=delivery.pk) & (due | stuck)).update(
        status=Delivery.Status.SENDING, claimed_at=now, claim_token=token
    )
    return token if taken else None


def _target_key(url: str, what: str) -> str:
    return f"webhooks:{what}:" + hashlib.sha256(url.encode()).hexdigest()[:32]


def _acquire_slot(delivery: Delivery) -> bool | None:
    """Take one of the target's send slots: True taken, None no cap applies, False the target is full.

    A receiver that hangs would otherwise hold every worker thread for its timeout. Every target gets
    at most PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET sends at once, and a target recently slow (an attempt
    that took PONTE_WEBHOOK_SLOW_SECONDS or timed out) at most PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET.
    The counters live in the cache (Redis in production, shared by all workers) and expire with the
    claim lease, so a killed worker's slots come back.
    """
    slow = cache.get(_target_key(delivery.target_url, "slow"))
    cap = int(
        settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET
        if slow
        else settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET
    )
    if cap <= 0:
        return None
    key = _target_key(delivery.target_url, "inflight")
    cache.add(key, 0, timeout=int(_lease().total_seconds()))
    try:
        taken = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=int(_lease().total_seconds()))
        taken = 1
    if taken > cap:
        _release_slot(delivery)
        return False
    return True


def _wait_for_slot(delivery: Delivery) -> bool | None:
    """`_acquire_slot`, waiting up to PONTE_WEBHOOK_BUSY_TARGET_WAIT_SECONDS for a full target that
    answered quickly within the last PONTE_WEBHOOK_SLOW_SECONDS: its sends finish within milliseconds,
    and deferring each delivery turned away by a whole window (`_busy_wait`) left a busy healthy target
    at a few dozen events/s. Any other target's delivery is deferred at once: waiting would hold this
    thread behind a receiver that may hang."""
    deadline = time.monotonic() + float(settings.PONTE_WEBHOOK_BUSY_TARGET_WAIT_SECONDS)
    while True:
        slot = _acquire_slot(delivery)
        if slot is not False or time.monotonic() >= deadline:
            return slot
        if not cache.get(_target_key(delivery.target_url, "fast")):
            return False
        time.sleep(0.005)


def _release_slot(delivery: Delivery) -> None:
    with contextlib.suppress(ValueError):  # the counter expired: nothing to give back
        cache.decr(_target_key(delivery.target_url, "inflight"))


def _remember_speed(delivery: Delivery, result: PostResult) -> None:
    slow_key = _target_key(delivery.target_url, "slow")
    too_slow = result.duration_ms >= float(settings.PONTE_WEBHOOK_SLOW_SECONDS) * 1000
    fast_key = _target_key(delivery.target_url, "fast")
    if too_slow or (result.error or "").startswith("timeout"):
        cache.set(slow_key, True, timeout=int(settings.PONTE_WEBHOOK_SLOW_MEMORY_SECONDS))
        cache.delete(fast_key)
    elif result.error is None:
        cache.delete(slow_key)
        # Seen answering quickly just now: worth waiting for a slot of (`_wait_for_slot`).
        cache.set(fast_key, True, timeout=max(1, int(float(settings.PONTE_WEBHOOK_SLOW_SECONDS))))


def _busy_wait(delivery: Delivery) -> float:
    """How long a delivery waits for a full target, spread like a queue in front of the target.

    The n-th delivery turned away within one window waits n / cap windows, a window being the shortest
    wait (or the timeout, for a slow target): so a hanging receiver's backlog comes back a few at a time
    instead of polling the workers every second.
    """
    slow = cache.get(_target_key(delivery.target_url, "slow"))
    base = float(settings.PONTE_WEBHOOK_BUSY_TARGET_DEFER_SECONDS)
    cap = int(settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET)
    if slow:
        base = max(base, delivery.timeout_seconds)
        cap = int(settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET)
    key = _target_key(delivery.target_url, "turned-away")
    cache.add(key, 0, timeout=max(1, int(base)))
    try:
        turned_away = cache.incr(key)
    except ValueError:  # the window just ended
        turned_away = 1
    return base * max(1.0, turned_away / max(cap, 1))


def _defer(delivery: Delivery, wait: float) -> bool:
    """Try again after `wait` seconds without using an attempt (the target has no free slot)."""
    now = timezone.now()
    # Only a due delivery moves: a duplicate hint must not pull a later retry forward.
    moved = Delivery.objects.filter(pk=delivery.pk, status__in=WAITING, next_attempt_at__lte=now).update(
        next_attempt_at=now + timedelta(seconds=wait)
    )
    if moved:
        enqueue_on_commit([delivery.pk], countdown=wait)
    return bool(moved)


def _post(delivery: Delivery, *, secret: str) -> tuple[PostResult, Any]:
    body = render_body(delivery.payload)
    sent_at = timezone.now()
    headers = delivery_headers(secret=secret, msg_id=delivery.dispatch_id, body=body, sent_at=sent_at)
    try:
        result = safe_post(
            delivery.target_url,
            body=body,
            headers=headers,
            timeout=delivery.timeout_seconds,
            session=http_session(),
        )
    except UnsafeTarget as exc:  # the address was refused when connecting: a failed attempt
        result = PostResult(status=None, body_excerpt="", duration_ms=0, error=f"Refused target: {exc}")
    return result, sent_at


def delivery_attempt(*, delivery_id: int) -> str:
    """Make the next attempt of a delivery if it is due and nobody else holds it; what happened."""
    delivery = Delivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None:
        return "missing"
    claimable = delivery.status in WAITING or delivery.status == Delivery.Status.SENDING
    if not claimable:
        return "done"
    slot = _wait_for_slot(delivery)
    if slot is False:
        if delivery.status in WAITING:
            return "deferred" if _defer(delivery, _busy_wait(delivery)) else "not-claimed"
        slot = None  # a stuck claim being recovered is never held back
    try:
        token = _claim(delivery)
        if token is None:
            return "not-claimed"
        scheduled_at = delivery.next_attempt_at
        if delivery.kind == Delivery.Kind.REGISTERED and delivery.webhook is None:
            _finish_without_sending(delivery, token, "Webhook deleted before delivery.")
            return "dead"
        secret = delivery.webhook.secret if delivery.webhook else ""
        result, started_at = _post(delivery, secret=secret)
    finally:
        if slot:
            _release_slot(delivery)
    _remember_speed(delivery, result)
    return _record(delivery, token=token, result=result, scheduled_at=scheduled_at, started_at=started_at)


def _finish_without_sending(delivery: Delivery, token: str, reason: str) -> None:
    Delivery.objects.filter(pk=delivery.pk, claim_token=token).update(
        status=Delivery.Status.DEAD, dead_at=timezone.now(), last_error=reason, claimed_at=None
    )


@transaction.atomic
def _record(delivery: Delivery, *, token: str, result: PostResult, scheduled_at: Any, started_at: Any) -> str:
    policy = policy_for(delivery.kind)
    finished_at = timezone.now()
    number = delivery.attempt_count + 1
    outcome = policy.outcome(status=result.status, error=result.error)
    resend = delivery.resend_pending
    if outcome == "retry" and (resend or number >= delivery.max_attempts):
        # Attempts used up; a resend is one attempt and never starts a new retry chain.
        outcome = "give_up"
    DeliveryAttempt.objects.create(
        delivery=delivery,
        number=number,
        scheduled_at=scheduled_at,
        started_at=started_at,
        finished_at=finished_at,
        status_code=result.status,
        duration_ms=result.duration_ms,
        response_excerpt=(result.body_excerpt or "")[: DeliveryAttempt.RESPONSE_EXCERPT_CHARS],
        error=(result.error or "")[:500],
        outcome={"delivered": "delivered", "retry": "retry", "give_up": "dead"}[outcome],
        requested_by_id=delivery.resend_requested_by_id if resend else None,
    )
    fields: dict[str, Any] = {
        "attempt_count": number,
        "last_status_code": result.status,
        "last_error": (result.error or "")[:500],
        "claimed_at": None,
        "claim_token": "",
        "resend_pending": False,
    }
    if outcome == "delivered":
        fields.update(status=Delivery.Status.DELIVERED, delivered_at=finished_at)
    elif outcome == "retry":
        delay = policy.delay_before(number + 1)
        fields.update(status=Delivery.Status.FAILED, next_attempt_at=finished_at + timedelta(seconds=delay))
    else:
        fields.update(status=Delivery.Status.DEAD, dead_at=finished_at)
    updated = Delivery.objects.filter(pk=delivery.pk, claim_token=token).update(**fields)
    if updated and outcome == "retry":
        enqueue_on_commit([delivery.pk], countdown=delay)
    return {"delivered": "delivered", "retry": "retry", "give_up": "dead"}[outcome]


# --- Resend, sweep, purge ------------------------------------------------------------------------

RESENDABLE = [Delivery.Status.DEAD, Delivery.Status.DELIVERED]


@transaction.atomic
def deliveries_resend(*, deliveries: QuerySet[Delivery], requested_by: Any) -> tuple[int, int]:
    """Queue one new attempt (same x-webhook-id) for each dead or delivered delivery; (queued, skipped).

    Deliveries still on their way are skipped (they will be attempted anyway), and so are those whose
    registered webhook was deleted (there is nothing left to sign them with).
    """
    now = timezone.now()
    total = deliveries.count()
    candidates = deliveries.filter(status__in=RESENDABLE).exclude(
        kind=Delivery.Kind.REGISTERED, webhook__isnull=True
    )
    ids = list(candidates.values_list("pk", flat=True))
    queued = Delivery.objects.filter(pk__in=ids, status__in=RESENDABLE).update(
        status=Delivery.Status.PENDING,
        next_attempt_at=now,
        resend_pending=True,
        resend_requested_by=requested_by,
        resend_requested_at=now,
        dead_at=None,
    )
    enqueue_on_commit(ids)
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
    overdue = list(
        Delivery.objects.filter(status__in=WAITING, next_attempt_at__lte=now - grace)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    stuck = list(
        Delivery.objects.filter(status=Delivery.Status.SENDING, claimed_at__lte=now - lease)
        .order_by("claimed_at")
        .values_list("pk", flat=True)[:limit]
    )
    with transaction.atomic():
        Delivery.objects.filter(pk__in=overdue, status__in=WAITING).update(next_attempt_at=now)
        enqueue_on_commit([*overdue, *stuck])
    if overdue or stuck:
        logger.info("Sweeper re-enqueued %d overdue and %d stuck deliveries", len(overdue), len(stuck))
    return len(overdue) + len(stuck)


def dead_letters_purge(*, older_than: timedelta = DEAD_LETTER_RETENTION) -> int:
    """Delete dead letters kept longer than the retention (7 days); how many."""
    cutoff = timezone.now() - older_than
    deleted, _ = Delivery.objects.filter(status=Delivery.Status.DEAD, dead_at__lt=cutoff).delete()
    return deleted
