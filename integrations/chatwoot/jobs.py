"""The mirror's outbox: `MirrorJob` rows are the truth, Celery hints only say "drain this chat".

The same guarantees as the webhooks outbox (webhooks.outbox), for work that is several Chatwoot calls
rather than one POST:

* a job is written in the transaction of what caused it and hinted on commit; a lost hint is found
  again by the sweeper (beat), so nothing is lost whatever happens to the broker;
* order per chat: only the oldest unfinished job of a chat may be claimed; a job waiting for its retry
  holds the chat's later jobs back, a dead one lets them go;
* a claim is a conditional UPDATE with a short lease (PONTE_CHATWOOT_CLAIM_LEASE_SECONDS, 8 s), renewed
  by a heartbeat thread while the job runs (webhooks.outbox.lease's Keeper): two drains never run one job at
  once however long its calls take, and a job held by a killed worker is claimable again one lease
  after its last beat (the sweeper, or a starting worker's sweep, hints it);
* a failure is retried with back-off (the registered-webhook schedule, scaled by
  PONTE_WEBHOOK_RETRY_DELAY_SCALE) up to `max_attempts`, then the job is a dead letter, visible and
  resendable in the admin. A refusal that repeating cannot change (a 4xx) is dead at once.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from celery import signature
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from integrations.chatwoot.client import ChatwootError
from integrations.chatwoot.models import MirrorJob
from webhooks.outbox.lease import Keeper, oldest_claim_lapse_in
from webhooks.outbox.policy import REGISTERED

logger = logging.getLogger(__name__)

DRAIN_TASK = "integrations.chatwoot.drain"
SWEEP_TASK = "integrations.chatwoot.sweep"
WAITING = [MirrorJob.Status.PENDING, MirrorJob.Status.FAILED]
UNFINISHED = [MirrorJob.Status.PENDING, MirrorJob.Status.SENDING, MirrorJob.Status.FAILED]


class JobRefused(Exception):
    """The job cannot succeed by being repeated (it becomes a dead letter at once)."""


def lease_seconds() -> float:
    return float(settings.PONTE_CHATWOOT_CLAIM_LEASE_SECONDS)


def _lease() -> timedelta:
    return timedelta(seconds=lease_seconds())


def _claims_renew(tokens: list[str]) -> int:
    return MirrorJob.objects.filter(claim_token__in=tokens, status=MirrorJob.Status.SENDING).update(
        claimed_at=timezone.now()
    )


keeper = Keeper(lease=lease_seconds, renew=_claims_renew, name="chatwoot-lease")


def hint(integration_id: int, chat: str, *, countdown: float = 0) -> None:
    """Ask a worker to drain one chat. A failed publish is logged: the sweeper finds the job."""
    try:
        signature(DRAIN_TASK, args=[integration_id, chat]).apply_async(
            countdown=countdown if countdown > 0 else None
        )
    except Exception:  # the broker is away: the row waits in the database for the sweeper
        logger.warning("Could not hint chat %s of Chatwoot integration %s", chat, integration_id)


def job_record(
    *,
    integration_id: int,
    direction: str,
    kind: str,
    chat: str,
    payload: dict[str, Any],
    dedupe_key: str | None = None,
) -> MirrorJob | None:
    """Record a job in the caller's transaction, hinted on commit; None when `dedupe_key` was seen."""
    try:
        with transaction.atomic():
            job = MirrorJob.objects.create(
                integration_id=integration_id,
                direction=direction,
                kind=kind,
                chat=chat,
                payload=payload,
                dedupe_key=dedupe_key,
            )
    except IntegrityError:
        return None  # the same event already arrived (account webhook and inbox webhook)
    transaction.on_commit(lambda: hint(integration_id, chat), robust=True)
    return job


def _claim_head(integration_id: int, chat: str) -> MirrorJob | None:
    now = timezone.now()
    head = (
        MirrorJob.objects.filter(integration_id=integration_id, chat=chat, status__in=UNFINISHED)
        .order_by("id")
        .first()
    )
    if head is None:
        return None
    due = head.status in WAITING and head.next_attempt_at <= now
    lapsed = (
        head.status == MirrorJob.Status.SENDING
        and head.claimed_at is not None
        and head.claimed_at <= now - _lease()
    )
    if not (due or lapsed):
        return None
    token = uuid.uuid4().hex
    taken = MirrorJob.objects.filter(pk=head.pk, status=head.status, claim_token=head.claim_token).update(
        status=MirrorJob.Status.SENDING, claim_token=token, claimed_at=now
    )
    if not taken:
        return None
    head.refresh_from_db()
    return head


def _finish(job: MirrorJob, error: Exception | None) -> None:
    now = timezone.now()
    number = job.attempt_count + 1
    held = MirrorJob.objects.filter(pk=job.pk, claim_token=job.claim_token, status=MirrorJob.Status.SENDING)
    if error is None:
        held.update(status=MirrorJob.Status.DONE, attempt_count=number, finished_at=now, last_error="")
        return
    message = str(error)[:1000] or error.__class__.__name__
    final = isinstance(error, JobRefused) or (isinstance(error, ChatwootError) and error.final)
    if final or number >= job.max_attempts:
        held.update(status=MirrorJob.Status.DEAD, attempt_count=number, dead_at=now, last_error=message)
        logger.warning("Chatwoot mirror job %s dead after %d attempt(s): %s", job.pk, number, message)
        return
    delay = REGISTERED.delay_before(number + 1)
    held.update(
        status=MirrorJob.Status.FAILED,
        attempt_count=number,
        next_attempt_at=now + timedelta(seconds=delay),
        last_error=message,
    )
    hint(job.integration_id, job.chat, countdown=delay)


def drain(integration_id: int, chat: str, run: Callable[[MirrorJob], None]) -> int:
    """Run the chat's due jobs in order, one at a time; how many were run. A job left waiting for its
    retry stops the drain (it is the chat's head and not due); a dead one lets the next go."""
    handled = 0
    while (job := _claim_head(integration_id, chat)) is not None:
        error: Exception | None = None
        try:
            with keeper.claim(job.claim_token):  # renewed while the job's calls are on their way
                run(job)
        except Exception as exc:
            if not isinstance(exc, (ChatwootError, JobRefused)):
                logger.exception("Chatwoot mirror job %s failed", job.pk)
            error = exc
        _finish(job, error)
        handled += 1
    return handled


def sweep(*, grace_seconds: float = 15) -> int:
    """Hint every chat with a job due for longer than the grace period or held past its lease."""
    now = timezone.now()
    stale = Q(status__in=WAITING, next_attempt_at__lte=now - timedelta(seconds=grace_seconds)) | Q(
        status=MirrorJob.Status.SENDING, claimed_at__lte=now - _lease()
    )
    chats = set(MirrorJob.objects.filter(stale).values_list("integration_id", "chat")[:5000])
    for integration_id, chat in chats:
        hint(integration_id, chat)
    return len(chats)


def next_lapse_in() -> float | None:
    """Seconds until the oldest claim now held lapses, unless renewed (None: nothing is claimed). A
    starting worker sweeps then: jobs a killed worker held are free from that moment."""
    return oldest_claim_lapse_in(MirrorJob.objects.filter(status=MirrorJob.Status.SENDING), _lease())


DONE_RETENTION = timedelta(days=1)
DEAD_RETENTION = timedelta(days=7)


def jobs_purge() -> int:
    """Delete jobs done more than a day ago and dead letters kept more than 7 days; how many."""
    now = timezone.now()
    done, _ = MirrorJob.objects.filter(
        status=MirrorJob.Status.DONE, finished_at__lt=now - DONE_RETENTION
    ).delete()
    dead, _ = MirrorJob.objects.filter(
        status=MirrorJob.Status.DEAD, dead_at__lt=now - DEAD_RETENTION
    ).delete()
    return done + dead


@transaction.atomic
def jobs_resend(job_ids: list[int]) -> int:
    """Give dead letters one more attempt each (in their chat's order); how many were queued."""
    jobs = list(MirrorJob.objects.select_for_update().filter(pk__in=job_ids, status=MirrorJob.Status.DEAD))
    for job in jobs:
        job.status = MirrorJob.Status.PENDING
        job.next_attempt_at = timezone.now()
        job.max_attempts = job.attempt_count + 1
        job.dead_at = None
        job.claim_token = ""
        job.save()
    for integration_id, chat in {(j.integration_id, j.chat) for j in jobs}:
        transaction.on_commit(lambda i=integration_id, c=chat: hint(i, c), robust=True)
    return len(jobs)
