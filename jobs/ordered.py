"""Jobs run one at a time per group, in order: the outbox's engine for clients whose jobs must keep
their order (the Chatwoot mirror: per chat), each job possibly several calls.

* order per group: only the oldest unfinished job of a group may be claimed; a job waiting for its retry
  holds the group's later jobs back, a dead one lets them go;
* a claim is a conditional UPDATE with the table's short lease, renewed by its keeper while the job
  runs: two drains never run one job at once however long it takes, and a job held by a killed worker
  is claimable again one lease after its last beat (the sweeper, or a starting worker's sweep, hints it);
* a failure is judged by the client: retried on its schedule up to `max_attempts`, or dead at once (a
  refusal repeating cannot change); then the job is a dead letter, visible and resendable.

A client (`OrderedClient`) gives its table, the columns that make a group, its schedule, what one
attempt does, how a failure is judged and how a group is hinted (a Celery task of its own).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from datetime import timedelta
from typing import Any, Protocol

from django.db import transaction
from django.db.models import Model, Q
from django.utils import timezone

from jobs.lease import Keeper
from jobs.policy import DeliveryPolicy, Outcome
from jobs.table import DEAD, FAILED, PENDING, SENDING, WAITING, JobTable

logger = logging.getLogger(__name__)

UNFINISHED = (*WAITING, SENDING)
SWEEP_LIMIT = 5000


class OrderedQueue(Protocol):
    """What sweeping, resending and purging need: the table, what makes a group, how it is hinted."""

    table: JobTable
    group_by: tuple[str, ...]  # the columns of a group, e.g. ("integration_id", "chat")

    def hint(self, group: tuple[Any, ...], *, countdown: float = 0) -> None:
        """Ask a worker to drain `group` (after `countdown` seconds); never raises."""


class OrderedClient(OrderedQueue, Protocol):
    """What running jobs needs besides: the schedule, the keeper of the table's claims, what one
    attempt does and how its failure is judged."""

    schedule: DeliveryPolicy
    keeper: Keeper

    def attempt(self, job: Any) -> None:
        """Run one attempt of `job`; raises when it failed."""

    def judge(self, error: Exception) -> Outcome:
        """A failed attempt: "retry" (on the schedule) or "give_up" (dead now)."""


def _group_filter(client: OrderedQueue, group: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(client.group_by, group, strict=True))


def group_of(client: OrderedQueue, job: Model) -> tuple[Any, ...]:
    return tuple(getattr(job, name) for name in client.group_by)


def claim_head(client: OrderedClient, group: tuple[Any, ...]) -> Any | None:
    """Claim the group's oldest unfinished job if it is due (or its claim lapsed); None otherwise."""
    model, now = client.table.model, timezone.now()
    unfinished = model.objects.filter(**_group_filter(client, group), status__in=UNFINISHED)
    head = unfinished.order_by("id").first()
    if head is None:
        return None
    due = head.status in WAITING and head.next_attempt_at <= now
    lapsed = (
        head.status == SENDING
        and head.claimed_at is not None
        and head.claimed_at <= now - client.table.lease()
    )
    if not (due or lapsed):
        return None
    token = uuid.uuid4().hex
    taken = model.objects.filter(pk=head.pk, status=head.status, claim_token=head.claim_token).update(
        status=SENDING, claim_token=token, claimed_at=now
    )
    if not taken:
        return None
    head.refresh_from_db()
    return head


def finish(client: OrderedClient, job: Any, error: Exception | None) -> str:
    """Write the attempt's end, only if the job's claim is still this one: "delivered", "retry" (hinted
    after its delay) or "dead"."""
    now, number = timezone.now(), job.attempt_count + 1
    table = client.table
    held = table.model.objects.filter(pk=job.pk, claim_token=job.claim_token, status=SENDING)
    verdict: Outcome = "delivered" if error is None else client.judge(error)
    settled = client.schedule.settle(verdict, number=number, max_attempts=job.max_attempts)
    message = "" if error is None else (str(error)[:1000] or error.__class__.__name__)
    if settled.outcome == "delivered":
        held.update(status=table.finished, attempt_count=number, last_error="", **{table.finished_at: now})
    elif settled.outcome == "dead":
        held.update(status=DEAD, attempt_count=number, dead_at=now, last_error=message)
        logger.warning("%s job %s dead after %d attempt(s): %s", table.name, job.pk, number, message)
    else:
        delay = settled.delay or 0
        retry_at = now + timedelta(seconds=delay)
        held.update(status=FAILED, attempt_count=number, next_attempt_at=retry_at, last_error=message)
        client.hint(group_of(client, job), countdown=delay)
    return settled.outcome


def drain(client: OrderedClient, group: tuple[Any, ...], *, limit: int | None = None) -> int:
    """Run the group's due jobs in order, one at a time; how many were run. A job left waiting for its
    retry stops the drain (it is the group's head and not due); a dead one lets the next go. With
    `limit`, at most that many jobs: a client whose groups take turns hints the group again when the
    limit was reached (its next turn waits behind the other groups' hints)."""
    handled = 0
    while (limit is None or handled < limit) and (job := claim_head(client, group)) is not None:
        error: Exception | None = None
        try:
            with client.keeper.claim(job.claim_token):  # renewed while the attempt is on its way
                client.attempt(job)
        except Exception as exc:
            error = exc
        finish(client, job, error)
        handled += 1
    return handled


def sweep(client: OrderedQueue, *, grace_seconds: float) -> int:
    """Hint every group with a job due for longer than the grace period or held past its lease."""
    now = timezone.now()
    stale = Q(status__in=WAITING, next_attempt_at__lte=now - timedelta(seconds=grace_seconds)) | Q(
        status=SENDING, claimed_at__lte=now - client.table.lease()
    )
    rows = client.table.model.objects.filter(stale).values_list(*client.group_by)[:SWEEP_LIMIT]
    groups = set(rows)
    for group in groups:
        client.hint(group)
    return len(groups)


def resend(client: OrderedQueue, job_ids: Iterable[int]) -> int:
    """Give dead letters one more attempt each (in their group's order); how many were queued. Runs in
    the caller's transaction (or its own); hinted on commit."""
    with transaction.atomic():
        model = client.table.model
        jobs = list(model.objects.select_for_update().filter(pk__in=list(job_ids), status=DEAD))
        for job in jobs:
            job.status = PENDING
            job.next_attempt_at = timezone.now()
            job.max_attempts = job.attempt_count + 1  # one attempt: a resend starts no retry chain
            job.dead_at = None
            job.claim_token = ""
            job.save()
        for group in {group_of(client, job) for job in jobs}:
            transaction.on_commit(lambda g=group: client.hint(g), robust=True)
    return len(jobs)


def purge(client: OrderedQueue, *, finished_kept: timedelta, dead_kept: timedelta) -> int:
    """Delete jobs finished longer ago than `finished_kept` and dead letters kept longer than
    `dead_kept`; how many."""
    table, now = client.table, timezone.now()
    finished = {"status": table.finished, f"{table.finished_at}__lt": now - finished_kept}
    done, _ = table.model.objects.filter(**finished).delete()
    dead, _ = table.model.objects.filter(status=DEAD, dead_at__lt=now - dead_kept).delete()
    return done + dead
