"""The delivery side of the outbox: claim, sign, POST, record, retry or dead-letter; sweep; purge; resend.

The `Delivery` row is the truth and the broker only carries hints (a delivery id):

* a hint drains its delivery's target: the worker claims up to PONTE_WEBHOOK_BATCH_SIZE due deliveries
  of that target with one conditional UPDATE, POSTs them one after another on the pooled keep-alive
  connection, and records the whole batch in one transaction; it goes on while anything is due there
  (for up to PONTE_WEBHOOK_DRAIN_SECONDS, then it hands over to a new hint so other targets get turns).
  One claim per batch instead of per delivery is what lets a worker keep up with a busy receiver;
* a claim is a conditional UPDATE (due and waiting, or `sending` past its lease), so two drains never
  send one delivery at once; a running drain renews its claims (jobs.lease), so the lease is short
  and a killed worker's claims lapse within seconds;
* the outcome is written only by the holder of the claim (`claim_token`);
* a drain holds one of its target's send slots (webhooks.outbox.throttle), so a hanging receiver holds a few
  worker threads, not all of them. A hint that finds every slot taken leaves: each holder looks again
  for due deliveries after it lets go of its slot;
* the sweeper re-enqueues rows that are due but were never picked up (a lost message) and rows stuck in
  `sending` (a killed worker), so nothing is lost whatever happens to the broker.
"""

from __future__ import annotations

import functools
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from core.metrics import Reading
from jobs.lease import Keeper
from jobs.metrics import table_readings
from jobs.table import JobTable
from webhooks.models import Delivery, Webhook
from webhooks.outbox import fifo, metrics, posting, rate_limit, recording, retention, sql, throttle
from webhooks.outbox.disable import webhooks_check_failing
from webhooks.outbox.hints import enqueue_on_commit
from webhooks.outbox.operational import dead_letters_send
from webhooks.outbox.sql import Claimed

logger = logging.getLogger(__name__)

DEAD_LETTER_RETENTION = retention.DEAD_LETTER_RETENTION
WAITING = [Delivery.Status.PENDING, Delivery.Status.FAILED]
FINISHED = [Delivery.Status.DELIVERED, Delivery.Status.DEAD]


# --- Claims --------------------------------------------------------------------------------------


def _lease() -> timedelta:
    return timedelta(seconds=float(settings.PONTE_WEBHOOK_CLAIM_LEASE_SECONDS))


def deliveries_claim(target_url: str, *, limit: int) -> tuple[str, list[Claimed]]:
    """Claim up to `limit` claimable deliveries of one target, oldest due first: (claim token, rows)."""
    now = timezone.now()
    token = uuid.uuid4().hex
    return token, sql.claim(target_url, limit=limit, token=token, now=now, lease_cutoff=now - _lease())


def _unclaim(deliveries: list[Claimed], token: str) -> None:
    """Give back claimed deliveries that were not sent (the drain stopped): no attempt is used."""
    for status, attempted in ((Delivery.Status.PENDING, False), (Delivery.Status.FAILED, True)):
        ids = [d.pk for d in deliveries if (d.attempt_count > 0) == attempted]
        sql.unclaim(ids, token=token, status=status)


def _due_exists(target_url: str) -> bool:
    now = timezone.now()
    return sql.due_exists(target_url, now=now, lease_cutoff=now - _lease())


# --- Sending -------------------------------------------------------------------------------------


@dataclass
class Paced:
    """Deliveries of a batch held back by their webhooks' rate limits (webhooks.outbox.rate_limit): given
    back, due again in `seconds`, no attempt used."""

    deliveries: list[Claimed]
    seconds: float


def _paced(held: dict[str, float], deliveries: list[Claimed]) -> Paced | None:
    return Paced(deliveries, max(held.values())) if deliveries else None


def _send_batch(
    batch: list[Claimed], *, deadline: float
) -> tuple[list[posting.Sent], list[Claimed], bool, Paced | None]:
    """POST the batch in order: (sent, not sent, target found slow, held back by a rate limit). A slow
    or timed-out answer, or the drain's deadline, stops the batch: the rest is given back rather than
    held behind a bad receiver. A webhook's rate limit paces each of its POSTs; when no place in its
    window frees soon, its deliveries in the batch wait for one and the others go on."""
    sent: list[posting.Sent] = []
    held: dict[str, float] = {}  # webhook id: seconds until its window has a place
    waiting: list[Claimed] = []
    for index, delivery in enumerate(batch):
        ticket = None if delivery.webhook_id in held else rate_limit.pace(delivery)
        if isinstance(ticket, float):
            held[str(delivery.webhook_id)] = ticket
        if delivery.webhook_id in held:
            waiting.append(delivery)
            continue
        try:
            outcome = posting.attempt(delivery)
        finally:
            rate_limit.release(ticket)
        sent.append(outcome)
        result = outcome.result
        slow = result is not None and throttle.is_too_slow(result.duration_ms, result.error)
        if slow or time.monotonic() >= deadline:
            return sent, batch[index + 1 :], slow, _paced(held, waiting)
    return sent, [], False, _paced(held, waiting)


# --- Recording -----------------------------------------------------------------------------------


def _record_batch(sent: list[posting.Sent], token: str) -> dict[int, str]:
    """Write the batch's attempts and outcomes at once (webhooks.outbox.recording): {delivery id: outcome}.

    Only deliveries still held by this claim are written: one whose lease ran out and was claimed again
    belongs to its new holder ("not-claimed" here).
    """
    applied = {item.delivery.pk: (item.delivery, *posting.judged(item)) for item in sent}
    states = [(pk, state) for pk, (_d, _o, state, _a, _r) in applied.items()]
    attempts = [attempt for _d, _o, _s, attempt, _r in applied.values() if attempt is not None]
    hooks = {item.delivery.pk: item.delivery.webhook_id for item in sent}
    held, counts = recording.record_batch_counted(
        states, attempts, token=token, now=timezone.now(), webhooks=hooks
    )
    webhooks_check_failing(counts)  # nothing more unless a webhook has failed long enough (disable)
    outcomes: dict[int, str] = {}
    retries: dict[float, tuple[int, str]] = {}
    for pk, (delivery, outcome, _state, _attempt, delay) in applied.items():
        outcomes[pk] = outcome if pk in held else "not-claimed"
        if pk in held and delay is not None:
            retries.setdefault(delay, (pk, delivery.target_url))
    for delay, hint in retries.items():
        enqueue_on_commit([hint], countdown=delay)
    _tell_dead_letters([delivery for pk, (delivery, *_rest) in applied.items() if outcomes[pk] == "dead"])
    # A fifo webhook's chat goes on with its next event once this one is delivered or dead.
    fifo.finished_release([pk for pk, (d, *_r) in applied.items() if d.fifo and outcomes[pk] in FINISHED])
    return outcomes


def _tell_dead_letters(dead: list[Claimed]) -> None:
    """webhook.dead_letter to the other webhooks of each dead letter's account (outbox.operational)."""
    letters = [
        {
            "deliveryId": d.pk,
            "eventId": d.dispatch_id,
            "event": (d.payload or {}).get("event", "") if isinstance(d.payload, dict) else "",
            "webhookId": d.webhook_id,
        }
        for d in dead
        if d.kind == Delivery.Kind.REGISTERED and d.webhook_id
    ]
    if letters:
        dead_letters_send(letters)


# --- Draining a target ---------------------------------------------------------------------------


TABLE = JobTable(
    Delivery,
    finished=Delivery.Status.DELIVERED,
    finished_at="delivered_at",
    lease_setting="PONTE_WEBHOOK_CLAIM_LEASE_SECONDS",
    name="webhooks",
)
keeper = Keeper(TABLE)


def collect() -> list[Reading]:
    """The deliveries' gauges at scrape time (PONTE_METRICS_COLLECTORS)."""
    return table_readings(
        TABLE,
        "ponte_webhook",
        due_help="Deliveries due and not yet sent.",
        dead_help="Dead letters kept (7 days).",
    )


def help_behind(target_url: str, hint_id: int) -> None:
    """A drain keeps its target's hint flag while it runs (delivery_attempt), so events committed
    meanwhile wait for its next batch. When a batch has been out for half of PONTE_WEBHOOK_SLOW_SECONDS
    (a slow or hanging receiver), what waits behind it gets a hint of its own (the keeper's beat calls
    this once per batch): another worker thread sends it, up to the target's slot cap, as when each
    event brought its own hint."""
    throttle.hint_taken(target_url)
    if _due_exists(target_url):
        enqueue_on_commit([(hint_id, target_url)], force=True)


def _hold_back(paced: Paced, token: str, hint_id: int) -> None:
    """Deliveries a rate limit held back wait in the database for their time, and a hint comes then
    (the sweeper would find them too)."""
    rate_limit.defer(paced.deliveries, token=token, seconds=paced.seconds)
    target_url = paced.deliveries[0].target_url
    enqueue_on_commit([(hint_id, target_url)], countdown=paced.seconds, force=True)


@dataclass
class Drained:
    """What one drain did: outcomes by delivery id; `stopped`: the target is slow or the time is up
    (the caller hands over to a new hint); `no_slot`: every send slot was held, nothing was tried;
    `flag_down`: it found nothing more in time, and lowered the target's hint flag with its slot."""

    outcomes: dict[int, str]
    stopped: bool = False
    no_slot: bool = False
    flag_down: bool = False


def _drain(target_url: str, *, deadline: float, hint_id: int) -> Drained:
    """Send what is due at one target while holding one of its slots.

    A full batch means a backlog: the drain asks once for a helper (a hint for the same target), so
    up to the target's slot cap of worker threads share it, each with full batches.
    """
    drained = Drained({})
    was_slow = throttle.is_slow(target_url)
    slot = throttle.slot_acquire(target_url, slow=was_slow)
    if slot is None:
        drained.no_slot = True  # every slot is held, and each holder looks again when it lets go
        return drained
    slow = answered = recruited = False
    try:
        with keeper.slot(slot):
            while True:  # at least one batch, however short the time left
                limit = 1 if was_slow else int(settings.PONTE_WEBHOOK_BATCH_SIZE)
                token, batch = deliveries_claim(target_url, limit=limit)
                if not batch:
                    drained.flag_down = time.monotonic() < deadline
                    return drained
                # A batch of resends alone (a replay's chunk, webhooks.registered.replay) gets no helper: a
                # replay goes below live deliveries, on one worker thread, whatever its size.
                resends = all(delivery.resend_pending for delivery in batch)
                if len(batch) == limit and not was_slow and not recruited and not resends:
                    enqueue_on_commit([(hint_id, target_url)], force=True)
                    recruited = True
                # Renewed while the batch is on its way; what waits behind a long one gets help.
                with keeper.claim(
                    token,
                    long_after=float(settings.PONTE_WEBHOOK_SLOW_SECONDS) / 2,
                    when_long=functools.partial(help_behind, target_url, hint_id),
                ):
                    sent, unsent, slow, paced = _send_batch(batch, deadline=deadline)
                    if unsent:
                        _unclaim(unsent, token)
                    if paced is not None:
                        _hold_back(paced, token, hint_id)
                    drained.outcomes.update(_record_batch(sent, token))
                metrics.attempts_recorded(sent, drained.outcomes)  # counts and a log line per attempt
                answered = answered or any(s.result is not None and s.result.ok for s in sent)
                if slow or paced is not None or time.monotonic() >= deadline:
                    drained.stopped = True
                    return drained
                if len(batch) < limit:  # that was all; the caller looks again once the slot is free
                    drained.flag_down = time.monotonic() < deadline
                    return drained
    finally:
        # Nothing more found: the hint flag goes down with the slot, one round trip for both.
        throttle.slot_release(slot, hint_taken_for=target_url if drained.flag_down else None)
        throttle.remember_speed(target_url, slow=slow, answered=answered and not slow, was_slow=was_slow)


def delivery_attempt(*, delivery_id: int, target_url: str = "") -> str:
    """Handle a hint: drain the delivery's target if anything is due there; what became of the delivery.

    The target's hint flag (webhooks.outbox.throttle) stays set while the drain runs, so the events committed
    meanwhile add no hints: this drain takes them in its next batch. Only when it finds nothing more
    does it clear the flag, then looks once more: a delivery committed just before the flag was cleared
    is sent here, one committed after publishes its own hint.

    "delivered", "retry" or "dead" when it was attempted here; "done" when it had already finished;
    "not-claimed" when it was not due, or held, or left for another drain; "missing" when it is gone.
    `target_url`: the delivery's target, as the hint carries it (else it is looked up).
    """
    if not target_url:
        row = sql.delivery_hint(delivery_id)
        if row is None:
            return "missing"
        target_url = row[1]
    deadline = time.monotonic() + float(settings.PONTE_WEBHOOK_DRAIN_SECONDS)
    outcomes: dict[int, str] = {}
    while True:
        drained = _drain(target_url, deadline=deadline, hint_id=delivery_id)
        outcomes.update(drained.outcomes)
        if drained.no_slot:
            break  # the slots' holders clear the flag and look again when they let go
        if not drained.flag_down:  # stopped (a slow target) or out of time
            if _due_exists(target_url):
                # A new hint waits behind other targets' hints (a slow target's, a moment more).
                slow = throttle.is_slow(target_url)
                delay = float(settings.PONTE_WEBHOOK_BUSY_TARGET_DEFER_SECONDS) if slow else 0
                enqueue_on_commit([(delivery_id, target_url)], countdown=delay, force=True)
            break
        # The last claim found no more than it took: nothing else was due then, and the flag is down.
        if not _due_exists(target_url) or not throttle.hint_wanted(target_url):
            break  # nothing left, or a newer hint is on its way for what is
    if delivery_id in outcomes:
        return outcomes[delivery_id]
    row = sql.delivery_hint(delivery_id)  # not sent here: say why
    if row is None:
        return "missing"
    status, current_url = row
    if current_url != target_url and status in WAITING:
        # The webhook's URL was changed after the hint left: drain where the delivery goes now.
        return delivery_attempt(delivery_id=delivery_id, target_url=current_url)
    return "done" if status in FINISHED else "not-claimed"


# --- Resend, sweep, purge ------------------------------------------------------------------------

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
    overdue = sql.sweepable("overdue", before=now - grace, limit=limit)
    stuck = sql.sweepable("stuck", before=now - lease, limit=limit)
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


def next_lapse_in() -> float | None:
    """Seconds until the oldest claim now held lapses, unless renewed (None: nothing is claimed). A
    starting worker sweeps then: claims a killed worker left are free from that moment."""
    return TABLE.next_lapse_in()


def dead_letters_purge(*, older_than: timedelta = DEAD_LETTER_RETENTION) -> int:
    """Delete dead letters kept longer than the retention (7 days) and their attempts, and deliveries held
    for a disabled webhook as long, in small batches (webhooks.outbox.retention); how many dead letters."""
    totals = retention.deliveries_purge(delivered=False, events=False, dead_kept_for=older_than)
    return totals.dead_letters
