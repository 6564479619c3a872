"""The webhook deliveries (registered and instance) as a queue of the job system (`DeliveryQueue`):
claim, sign, POST, record, retry or dead-letter; resend, sweep, purge.

The `Delivery` row is the truth and the broker only carries hints (a delivery id and its target):

* a hint drains its delivery's target through the job system's one drain loop (jobs.drain) in batches:
  up to PONTE_WEBHOOK_BATCH_SIZE due deliveries of the target claimed with one conditional UPDATE,
  POSTed one after another on the pooled keep-alive connection (webhooks.outbox.sending), recorded in
  one write; it goes on while anything is due there (up to PONTE_WEBHOOK_DRAIN_SECONDS, then it hands
  over to a new hint so other targets get turns);
* two drains never send one delivery at once; a running drain renews its claims (jobs.lease), so a
  killed worker's claims lapse within seconds; the outcome is written only by the claim's holder;
* a drain holds one of its target's send slots (webhooks.outbox.throttle), so a hanging receiver holds
  a few worker threads, not all of them;
* a retry's time is on its row; the drain wakes the target for it (`DeliveryQueue.wake`), and the
  sweeper re-enqueues what is overdue or stuck, so nothing is lost whatever happens to the broker.
"""

from __future__ import annotations

import functools
import logging
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from core.metrics import Reading
from jobs import drain
from jobs.lease import Keeper
from jobs.queue import Gauges, JobQueue
from jobs.table import JobTable
from webhooks.models import Delivery
from webhooks.outbox import fifo, metrics, posting, rate_limit, recording, sending, sql, throttle
from webhooks.outbox.disable import webhooks_check_failing
from webhooks.outbox.hints import enqueue_on_commit
from webhooks.outbox.operational import dead_letters_send
from webhooks.outbox.sql import Claimed
from webhooks.outbox.upkeep import DEAD_LETTER_RETENTION as DEAD_LETTER_RETENTION
from webhooks.outbox.upkeep import RESENDABLE as RESENDABLE
from webhooks.outbox.upkeep import dead_letters_purge, deliveries_resend, deliveries_sweep

logger = logging.getLogger(__name__)

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
    # A retry's time is on its row (next_attempt_at): the drain wakes the target for it (DeliveryQueue.wake).
    outcomes = {pk: outcome if pk in held else "not-claimed" for pk, (_d, outcome, *_r) in applied.items()}
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

# --- The queue -----------------------------------------------------------------------------------


class DeliveryQueue(JobQueue):
    """Registered and instance deliveries as a queue of the job system: a group is a target URL, a claim
    a batch of its due deliveries (one statement, webhooks.outbox.sql), a batch's attempts POSTs on the
    target's keep-alive connection (webhooks.outbox.sending), its settle one write (webhooks.outbox.
    recording); resend, sweep and purge below. Hints carry a delivery id with the target."""

    table = JobTable(
        Delivery,
        finished=Delivery.Status.DELIVERED,
        finished_at="delivered_at",
        lease_setting="PONTE_WEBHOOK_CLAIM_LEASE_SECONDS",
        name="webhooks",
    )
    gauges = Gauges(
        "ponte_webhook", due_help="Deliveries due and not yet sent.", dead_help="Dead letters kept (7 days)."
    )

    def __init__(self) -> None:
        self.keeper = Keeper(self.table)

    def hint(self, group: tuple[int, str], *, countdown: float = 0) -> None:
        """`group`: (a delivery id, its target URL)."""
        enqueue_on_commit([group], countdown=countdown, force=True)

    def claim(self, group: str, *, limit: int = 1) -> drain.Claim | None:
        token, batch = deliveries_claim(group, limit=limit)
        return drain.Claim(token, batch) if batch else None

    def unclaim(self, claim: drain.Claim, jobs: list[Any]) -> None:
        _unclaim(jobs, claim.token)

    def settle(self, claim: drain.Claim, attempted: drain.Attempted) -> dict[int, str]:
        outcomes = _record_batch(attempted.done, claim.token)
        metrics.attempts_recorded(attempted.done, outcomes)  # counts and a log line per attempt
        return outcomes

    def wake(self, group: str) -> None:
        """Hint the target for its earliest waiting delivery, when its row says it is due."""
        now = timezone.now()
        waiting = Delivery.objects.filter(target_url=group, status__in=WAITING, next_attempt_at__gt=now)
        first = waiting.order_by("next_attempt_at", "id").values_list("pk", "next_attempt_at").first()
        if first is not None:
            pk, at = first
            enqueue_on_commit([(pk, group)], countdown=max(0.001, (at - now).total_seconds()))

    def resend(self, job_ids: Iterable[int], *, requested_by: Any = None) -> int:
        chosen = Delivery.objects.filter(pk__in=list(job_ids))
        return deliveries_resend(deliveries=chosen, requested_by=requested_by)[0]

    def sweep(self, *, grace_seconds: float) -> int:
        return deliveries_sweep(grace_seconds=grace_seconds)

    def purge(self) -> int:
        return dead_letters_purge()


QUEUE = DeliveryQueue()
TABLE = QUEUE.table
keeper = QUEUE.keeper


def collect() -> list[Reading]:
    return QUEUE.collect()


# --- Draining a target ---------------------------------------------------------------------------


def help_behind(target_url: str, hint_id: int) -> None:
    """A drain keeps its target's hint flag while it runs (delivery_attempt), so events committed
    meanwhile wait for its next batch. When a batch has been out for half of PONTE_WEBHOOK_SLOW_SECONDS
    (a slow or hanging receiver), what waits behind it gets a hint of its own (the keeper's beat calls
    this once per batch): another worker thread sends it, up to the target's slot cap, as when each
    event brought its own hint."""
    throttle.hint_taken(target_url)
    if _due_exists(target_url):
        enqueue_on_commit([(hint_id, target_url)], force=True)


class TargetDrain:
    """One drain of one target, holding one of its send slots: the queue's turns (jobs.drain.run) with
    what this drain learns on the way (the target slow, a receiver that answered, a helper asked for)."""

    def __init__(self, target_url: str, *, hint_id: int, was_slow: bool) -> None:
        self.target_url, self.hint_id, self.was_slow = target_url, hint_id, was_slow
        self.keeper = QUEUE.keeper
        self.slow = self.answered = self.recruited = False

    def claim(self, group: str, *, limit: int) -> drain.Claim | None:
        """A full batch means a backlog: the drain asks once for a helper (a hint for the same target),
        so up to the target's slot cap of worker threads share it, each with full batches. A batch of
        resends alone (a replay's chunk, webhooks.registered.replay) gets none: a replay goes below live
        deliveries, on one worker thread, whatever its size."""
        claim = QUEUE.claim(group, limit=limit)
        full = claim is not None and len(claim.jobs) == limit
        if full and not (self.was_slow or self.recruited or all(d.resend_pending for d in claim.jobs)):
            enqueue_on_commit([(self.hint_id, self.target_url)], force=True)
            self.recruited = True
        return claim

    def holding(self, claim: drain.Claim) -> Any:
        """Renewed while the batch is on its way; what waits behind a long one gets help."""
        return self.keeper.claim(
            claim.token,
            long_after=float(settings.PONTE_WEBHOOK_SLOW_SECONDS) / 2,
            when_long=functools.partial(help_behind, self.target_url, self.hint_id),
        )

    def attempt(self, claim: drain.Claim, *, deadline: float | None) -> drain.Attempted:
        sent, unsent, slow, paced = sending.send_batch(claim.jobs, deadline=deadline or time.monotonic())
        if paced is not None:
            # Held back by a rate limit: they wait in the database for their time, and a hint comes then.
            rate_limit.defer(paced.deliveries, token=claim.token, seconds=paced.seconds)
            enqueue_on_commit([(self.hint_id, self.target_url)], countdown=paced.seconds, force=True)
        self.slow = self.slow or slow
        self.answered = self.answered or any(s.result is not None and s.result.ok for s in sent)
        return drain.Attempted(sent, unsent, stop=slow or paced is not None)

    def unclaim(self, claim: drain.Claim, jobs: list[Any]) -> None:
        QUEUE.unclaim(claim, jobs)

    def settle(self, claim: drain.Claim, attempted: drain.Attempted) -> dict[int, str]:
        return QUEUE.settle(claim, attempted)

    def wake(self, group: str) -> None:
        QUEUE.wake(group)


@dataclass
class Drained:
    """What one drain of a target did: outcomes by delivery id; `no_slot`: every send slot was held,
    nothing was tried; `flag_down`: it found nothing more in time, and lowered the target's hint flag."""

    outcomes: dict[int, str]
    no_slot: bool = False
    flag_down: bool = False


def _drain(target_url: str, *, deadline: float, hint_id: int) -> Drained:
    """Send what is due at one target while holding one of its slots, through the job system's drain
    loop: batches of PONTE_WEBHOOK_BATCH_SIZE (one delivery at a time to a slow target) until nothing
    more is due, the target is slow, a rate limit holds deliveries back or the time is up."""
    was_slow = throttle.is_slow(target_url)
    slot = throttle.slot_acquire(target_url, slow=was_slow)
    if slot is None:
        return Drained({}, no_slot=True)  # every slot is held, and each holder looks again when it lets go
    turns = TargetDrain(target_url, hint_id=hint_id, was_slow=was_slow)
    drained = Drained({})
    try:
        with turns.keeper.slot(slot):
            limit = 1 if was_slow else int(settings.PONTE_WEBHOOK_BATCH_SIZE)
            ran = drain.run(turns, target_url, limit=limit, deadline=deadline)
            drained.outcomes = ran.outcomes
            drained.flag_down = ran.exhausted and time.monotonic() < deadline
    finally:
        # Nothing more found: the hint flag goes down with the slot, one round trip for both.
        throttle.slot_release(slot, hint_taken_for=target_url if drained.flag_down else None)
        slow, answered = turns.slow, turns.answered
        throttle.remember_speed(target_url, slow=slow, answered=answered and not slow, was_slow=was_slow)
    return drained


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


def next_lapse_in() -> float | None:
    """Seconds until the oldest claim now held lapses (None: nothing is claimed): a starting worker
    sweeps then."""
    return QUEUE.next_lapse_in()
