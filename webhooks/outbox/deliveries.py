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
from webhooks.outbox import fifo, metrics, posting, rate_limit, sending, throttle
from webhooks.outbox.disable import webhooks_check_failing
from webhooks.outbox.hints import enqueue_on_commit
from webhooks.outbox.operational import dead_letters_send
from webhooks.outbox.store import Claimed, store
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
    return token, store().claim(target_url, limit=limit, token=token, now=now, lease_cutoff=now - _lease())


def _unclaim(deliveries: list[Claimed], token: str) -> None:
    """Give back claimed deliveries that were not sent (the drain stopped): no attempt is used."""
    for status, attempted in ((Delivery.Status.PENDING, False), (Delivery.Status.FAILED, True)):
        ids = [d.pk for d in deliveries if (d.attempt_count > 0) == attempted]
        store().unclaim(ids, token=token, status=status)


def due_exists(target_url: str) -> bool:
    now = timezone.now()
    return store().due_exists(target_url, now=now, lease_cutoff=now - _lease())


# --- Recording -----------------------------------------------------------------------------------


def _record_batch(sent: list[posting.Sent], token: str) -> dict[int, str]:
    """Write the batch's attempts and outcomes at once (webhooks.outbox.store): {delivery id: outcome}.

    Only deliveries still held by this claim are written: one whose lease ran out and was claimed again
    belongs to its new holder ("not-claimed" here).
    """
    applied = {item.delivery.pk: (item.delivery, *posting.judged(item)) for item in sent}
    states = [(pk, state) for pk, (_d, _o, state, _a, _r) in applied.items()]
    attempts = [attempt for _d, _o, _s, attempt, _r in applied.values() if attempt is not None]
    hooks = {item.delivery.pk: item.delivery.webhook_id for item in sent}
    held, counts = store().record_batch_counted(
        states, attempts, token=token, now=timezone.now(), webhooks=hooks
    )
    webhooks_check_failing(counts)  # nothing more unless a webhook has failed long enough (disable)
    # A retry's time is on its row (next_attempt_at): the drain wakes the target for it (DeliveryQueue.wake).
    outcomes = {pk: outcome if pk in held else "not-claimed" for pk, (_d, outcome, *_r) in applied.items()}
    _tell_dead_letters([delivery for pk, (delivery, *_rest) in applied.items() if outcomes[pk] == "dead"])
    # A fifo webhook's chat goes on with its next event once this one is delivered or dead (asked only
    # when there is one: building the release's query costs a tenth of a delivery's CPU).
    finished_fifo = [pk for pk, (d, *_r) in applied.items() if d.fifo and outcomes[pk] in FINISHED]
    if finished_fifo:
        fifo.finished_release(finished_fifo)
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


# --- The queue -----------------------------------------------------------------------------------


class DeliveryQueue(JobQueue):
    """Registered and instance deliveries as a queue of the job system: a group is a target URL, a claim
    a batch of its due deliveries (one statement, webhooks.outbox.store), a batch's attempts POSTs on the
    target's keep-alive connection (webhooks.outbox.sending), its settle one write (webhooks.outbox.
    store); resend, sweep and purge below. Hints carry a delivery id with the target."""

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
    """A drain keeps its target's hint flag while it runs (drains.delivery_attempt), so events committed
    meanwhile wait for its next batch. When a batch has been out for half of PONTE_WEBHOOK_SLOW_SECONDS
    (a slow or hanging receiver), what waits behind it gets a hint of its own (the keeper's beat calls
    this once per batch): another worker thread sends it, up to the target's slot cap, as when each
    event brought its own hint."""
    throttle.hint_taken(target_url)
    if due_exists(target_url):
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
