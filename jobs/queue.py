"""A queue: the job system's one public face. A client declares its table, the columns that make a
group, its retry schedule, what one attempt does and how a failure is judged, how it is hinted, its
gauges and how long finished jobs are kept; the queue enqueues, claims, settles, resends, sweeps and
purges, and drains a group through the one loop (jobs.drain).

This class is the ordered queue (the Chatwoot mirror, the event stream, the official channels' inbound
rows and Graph API calls):

* order per group: only the oldest unfinished job of a group may be claimed; a job waiting for its retry
  holds the group's later jobs back, a dead one lets them go;
* a claim is a conditional UPDATE with the table's short lease, renewed by its keeper while the job
  runs: two drains never run one job at once however long it takes, and a job held by a killed worker
  is claimable again one lease after its last beat (the sweeper, or a starting worker's sweep, hints it);
* a failure is judged by the client: retried on its schedule up to `max_attempts`, or dead at once (a
  refusal repeating cannot change); then the job is a dead letter, visible and resendable;
* the retry's time is written on the row (`next_attempt_at`) and the group is woken for it from there
  (`wake`): the ledger schedules retries (docs/decisions/0024).

The webhook deliveries (webhooks.outbox.deliveries) are the same interface over their own store, with
batches per target instead of one head per group.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Model, Q
from django.utils import timezone
from django.utils.module_loading import import_string

from core.metrics import Reading
from jobs import drain, hints
from jobs.lease import Keeper
from jobs.metrics import table_readings
from jobs.policy import DeliveryPolicy, Outcome
from jobs.table import DEAD, FAILED, PENDING, SENDING, WAITING, JobTable

logger = logging.getLogger(__name__)

UNFINISHED = (*WAITING, SENDING)
SWEEP_LIMIT = 5000

Group = tuple[Any, ...]


@dataclass(frozen=True)
class Gauges:
    """The queue's gauges at scrape time: `<prefix>_queue_depth` and `<prefix>_dead_letters`."""

    prefix: str
    due_help: str
    dead_help: str


@dataclass(frozen=True)
class Kept:
    """How long finished jobs and dead letters are kept before `purge` deletes them."""

    finished: timedelta = timedelta(days=1)
    dead: timedelta = timedelta(days=7)


class JobQueue(ABC):
    """The interface every queue of the job system has, whatever its store: the drain loop's turns
    (jobs.drain.Turns: claim, holding, attempt, unclaim, settle, wake), and hint, resend, sweep, purge;
    the gauges and the next lapse come from its table."""

    table: JobTable
    gauges: Gauges
    keeper: Keeper

    @abstractmethod
    def hint(self, group: Any, *, countdown: float = 0) -> None:
        """Ask a worker to drain `group` (after `countdown` seconds); never raises."""

    @abstractmethod
    def claim(self, group: Any, *, limit: int = 1) -> drain.Claim | None:
        """Claim up to `limit` due jobs of `group`."""

    @abstractmethod
    def unclaim(self, claim: drain.Claim, jobs: list[Any]) -> None:
        """Give back claimed jobs that were not attempted (no attempt used)."""

    @abstractmethod
    def settle(self, claim: drain.Claim, attempted: drain.Attempted) -> dict[int, str]:
        """Record the attempts' ends while the claim holds them: {job id: outcome}."""

    @abstractmethod
    def wake(self, group: Any) -> None:
        """Hint `group` for the next time its table's `next_attempt_at` says."""

    @abstractmethod
    def resend(self, job_ids: Iterable[int]) -> int:
        """Give finished jobs one more attempt each (the same job, the same id); how many."""

    @abstractmethod
    def sweep(self, *, grace_seconds: float) -> int:
        """Hint what is due for longer than the grace period or held past its lease; how many."""

    @abstractmethod
    def purge(self) -> int:
        """Delete what is kept past its retention; how many."""

    def collect(self) -> list[Reading]:
        """The queue's gauges at scrape time (PONTE_METRICS_COLLECTORS)."""
        g = self.gauges
        return table_readings(self.table, g.prefix, due_help=g.due_help, dead_help=g.dead_help)

    def next_lapse_in(self) -> float | None:
        """Seconds until the oldest claim now held lapses (None: nothing is claimed): a starting worker
        sweeps then."""
        return self.table.next_lapse_in()


class Queue(JobQueue):
    """A durable queue of jobs in order per group. `attempt` and `judge`: callables, or dotted paths
    resolved at the first drain (a client whose attempt imports what records its jobs). `turn`: at most
    that many jobs per drain, the group hinted again if more is due (groups take turns)."""

    def __init__(
        self,
        *,
        table: JobTable,
        group_by: tuple[str, ...],
        schedule: DeliveryPolicy,
        drain_task: str,
        gauges: Gauges,
        attempt: Callable[[Any], None] | str,
        judge: Callable[[Exception], Outcome] | str,
        kept: Kept = Kept(),
        turn: int | None = None,
        breaker: bool = False,
        keeper: Keeper | None = None,
    ) -> None:
        self.table, self.group_by, self.schedule = table, group_by, schedule
        self.drain_task, self.gauges, self.kept, self.turn = drain_task, gauges, kept, turn
        self._attempt, self._judge, self._breaker = attempt, judge, breaker
        self.keeper = keeper or Keeper(table)

    # --- Enqueue, hint ---------------------------------------------------------------------------

    def group_of(self, job: Model) -> Group:
        return tuple(getattr(job, name) for name in self.group_by)

    def _of_group(self, group: Group) -> dict[str, Any]:
        return dict(zip(self.group_by, group, strict=True))

    def hint(self, group: Group, *, countdown: float = 0) -> None:
        """Ask a worker to drain `group` (after `countdown` seconds); never raises (the sweeper finds
        the jobs of a lost hint)."""
        hints.publish(self.drain_task, group, countdown=countdown, breaker=self._breaker)

    def enqueue(self, **fields: Any) -> Any:
        """Record one job in the caller's transaction, hinted on commit."""
        job = self.table.model.objects.create(**{"max_attempts": self.schedule.default_attempts, **fields})
        group = self.group_of(job)
        transaction.on_commit(lambda: self.hint(group), robust=True)
        return job

    def enqueue_many(self, jobs: list[Model]) -> list[Model]:
        """Record jobs (built unsaved, `max_attempts` set) in one INSERT, each group hinted on commit."""
        created = self.table.model.objects.bulk_create(jobs)
        for group in {self.group_of(job) for job in created}:
            transaction.on_commit(lambda g=group: self.hint(g), robust=True)
        return created

    # --- The drain's turns (jobs.drain.Turns) ----------------------------------------------------

    def _head(self, group: Group) -> Any | None:
        unfinished = self.table.model.objects.filter(**self._of_group(group), status__in=UNFINISHED)
        return unfinished.order_by("id").first()

    def claim(self, group: Group, *, limit: int = 1) -> drain.Claim | None:
        """Claim the group's oldest unfinished job if it is due (or its claim lapsed); None otherwise.
        One job whatever `limit`: the head alone keeps the group's order."""
        head, now = self._head(group), timezone.now()
        if head is None:
            return None
        due = head.status in WAITING and head.next_attempt_at <= now
        lapsed = (
            head.status == SENDING
            and head.claimed_at is not None
            and head.claimed_at <= now - self.table.lease()
        )
        if not (due or lapsed):
            return None
        token = uuid.uuid4().hex
        taken = self.table.model.objects.filter(pk=head.pk, status=head.status, claim_token=head.claim_token)
        if not taken.update(status=SENDING, claim_token=token, claimed_at=now):
            return None
        head.refresh_from_db()
        return drain.Claim(token, [head])

    @contextlib.contextmanager
    def holding(self, claim: drain.Claim) -> Iterator[None]:
        with self.keeper.claim(claim.token):  # renewed while the attempt is on its way
            yield

    def attempt(self, claim: drain.Claim, *, deadline: float | None = None) -> drain.Attempted:
        """Run each claimed job's attempt: [(job, the error it raised or None)]."""
        run = self._resolved("_attempt")
        done: list[tuple[Any, Exception | None]] = []
        for job in claim.jobs:
            try:
                run(job)
            except Exception as exc:
                done.append((job, exc))
            else:
                done.append((job, None))
        return drain.Attempted(done)

    def unclaim(self, claim: drain.Claim, jobs: list[Any]) -> None:
        for job in jobs:
            held = self.table.model.objects.filter(pk=job.pk, claim_token=claim.token, status=SENDING)
            held.update(status=FAILED if job.attempt_count else PENDING, claimed_at=None)

    def settle(self, claim: drain.Claim, attempted: drain.Attempted) -> dict[int, str]:
        """Write each attempt's end, only if the job's claim is still this one: {id: "delivered",
        "retry" (due again at `next_attempt_at`) or "dead"}."""
        return {job.pk: self._settle_one(job, error) for job, error in attempted.done}

    def _settle_one(self, job: Any, error: Exception | None) -> str:
        now, number, table = timezone.now(), job.attempt_count + 1, self.table
        held = table.model.objects.filter(pk=job.pk, claim_token=job.claim_token, status=SENDING)
        verdict: Outcome = "delivered" if error is None else self._resolved("_judge")(error)
        settled = self.schedule.settle(verdict, number=number, max_attempts=job.max_attempts)
        message = "" if error is None else (str(error)[:1000] or error.__class__.__name__)
        if settled.outcome == "delivered":
            held.update(
                status=table.finished, attempt_count=number, last_error="", **{table.finished_at: now}
            )
        elif settled.outcome == "dead":
            held.update(status=DEAD, attempt_count=number, dead_at=now, last_error=message)
            logger.warning("%s job %s dead after %d attempt(s): %s", table.name, job.pk, number, message)
        else:
            retry_at = now + timedelta(seconds=settled.delay or 0)
            held.update(status=FAILED, attempt_count=number, next_attempt_at=retry_at, last_error=message)
        return settled.outcome

    def wake(self, group: Group) -> None:
        """Hint the group for when its head is due, as its row says (`next_attempt_at`): at once if
        that time passed since the drain's last claim found it not due yet."""
        head, now = self._head(group), timezone.now()
        if head is not None and head.status in WAITING:
            self.hint(group, countdown=(head.next_attempt_at - now).total_seconds())

    def _resolved(self, name: str) -> Callable[..., Any]:
        value = getattr(self, name)
        if isinstance(value, str):
            value = import_string(value)
            setattr(self, name, value)
        return value

    # --- Drain, sweep, resend, purge, gauges ----------------------------------------------------

    def drain(self, group: Group, *, turns: int | None = None) -> int:
        """Run the group's due jobs in order, one at a time (at most `turns`, else the queue's `turn`);
        how many were run. A group left with its head due (its turn used up) is hinted again, behind
        the other groups' hints."""
        turns = self.turn if turns is None else turns
        drained = drain.run(self, group, limit=1, turns=turns)
        if turns is not None and drained.turns == turns and not drained.woken:
            head = self._head(group)
            if head is not None and head.status in WAITING and head.next_attempt_at <= timezone.now():
                self.hint(group)
        return drained.turns

    def sweep(self, *, grace_seconds: float) -> int:
        """Hint every group with a job due for longer than the grace period or held past its lease."""
        now = timezone.now()
        stale = Q(status__in=WAITING, next_attempt_at__lte=now - timedelta(seconds=grace_seconds)) | Q(
            status=SENDING, claimed_at__lte=now - self.table.lease()
        )
        groups = set(self.table.model.objects.filter(stale).values_list(*self.group_by)[:SWEEP_LIMIT])
        for group in groups:
            self.hint(group)
        return len(groups)

    def resend(self, job_ids: Iterable[int]) -> int:
        """Give dead letters one more attempt each (in their group's order); how many were queued. Runs in
        the caller's transaction (or its own); hinted on commit."""
        with transaction.atomic():
            jobs = list(
                self.table.model.objects.select_for_update().filter(pk__in=list(job_ids), status=DEAD)
            )
            for job in jobs:
                job.status, job.next_attempt_at = PENDING, timezone.now()
                job.max_attempts = job.attempt_count + 1  # one attempt: a resend starts no retry chain
                job.dead_at, job.claim_token = None, ""
                job.save()
            for group in {self.group_of(job) for job in jobs}:
                transaction.on_commit(lambda g=group: self.hint(g), robust=True)
        return len(jobs)

    def purge(self) -> int:
        """Delete jobs finished longer ago than `kept.finished` and dead letters kept longer than
        `kept.dead`; how many."""
        table, now = self.table, timezone.now()
        finished = {"status": table.finished, f"{table.finished_at}__lt": now - self.kept.finished}
        done, _ = table.model.objects.filter(**finished).delete()
        dead, _ = table.model.objects.filter(status=DEAD, dead_at__lt=now - self.kept.dead).delete()
        return done + dead

    def waiting_count(self) -> int:
        """Jobs not yet finished, due or waiting for their retry."""
        return self.table.model.objects.filter(status__in=UNFINISHED).count()
