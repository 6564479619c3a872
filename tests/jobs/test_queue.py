"""The job system seen from a client (jobs.queue.Queue, jobs.drain, jobs.policy settle): a client
declares its table, what one attempt does, how a failure is judged and how a group is hinted; claims,
order, retries and dead letters are the job system's. The client here is a test's, on the mirror's real
table."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from integrations.chatwoot.jobs import QUEUE
from integrations.chatwoot.models import ChatwootIntegration, MirrorJob
from jobs.lease import Keeper
from jobs.policy import Outcome
from jobs.queue import Queue
from messaging.models import Session
from webhooks.outbox.policy import INSTANCE, REGISTERED

pytestmark = pytest.mark.django_db


class Refused(Exception):
    pass


class RecordingClient(Queue):
    """A client in a few lines: its attempt fails for the kinds it is told to, and says which
    failures are final; its hints are kept instead of published."""

    def __init__(self, failing: set[str] | None = None) -> None:
        super().__init__(
            table=QUEUE.table,
            group_by=QUEUE.group_by,
            schedule=REGISTERED,
            drain_task="tests.jobs.drain",
            gauges=QUEUE.gauges,
            attempt=self.run,
            judge=self.decide,
            keeper=Keeper(QUEUE.table, background=False),
        )
        self.failing = failing or set()
        self.attempted: list[str] = []
        self.hints: list[tuple[tuple[Any, ...], float]] = []

    def run(self, job: MirrorJob) -> None:
        self.attempted.append(job.kind)
        if job.kind in self.failing:
            raise Refused(job.kind) if job.kind.startswith("final") else RuntimeError(job.kind)

    def decide(self, error: Exception) -> Outcome:
        return "give_up" if isinstance(error, Refused) else "retry"

    def hint(self, group: tuple[Any, ...], *, countdown: float = 0) -> None:
        self.hints.append((group, countdown))


@pytest.fixture
def session(account) -> Session:
    return Session.objects.create(account=account, name="main", status=Session.Status.CONNECTED)


@pytest.fixture
def integration(session) -> ChatwootIntegration:
    return ChatwootIntegration.objects.create(
        session=session, base_url="https://chatwoot.example", access_token="t", inbox_identifier="i"
    )


def _job(integration, kind: str, chat: str = "c1", **fields) -> MirrorJob:
    return MirrorJob.objects.create(
        integration=integration, direction=MirrorJob.Direction.TO_PLATFORM, kind=kind, chat=chat, **fields
    )


def test_a_client_runs_its_group_in_order_and_the_outbox_marks_each_job_done(integration):
    first, second = _job(integration, "one"), _job(integration, "two")
    _job(integration, "elsewhere", chat="c2")
    client = RecordingClient()
    assert client.drain((integration.pk, "c1")) == 2
    assert client.attempted == ["one", "two"]
    for job in (first, second):
        job.refresh_from_db()
        assert job.status == MirrorJob.Status.DONE and job.attempt_count == 1 and job.finished_at
        assert job.claim_token  # the claim's holder wrote the outcome


def test_a_drain_with_a_limit_runs_at_most_that_many_jobs_and_leaves_the_rest_in_order(integration):
    _job(integration, "one"), _job(integration, "two"), _job(integration, "three")
    client = RecordingClient()
    assert client.drain((integration.pk, "c1"), turns=2) == 2
    assert client.attempted == ["one", "two"]
    assert client.drain((integration.pk, "c1"), turns=2) == 1
    assert client.attempted == ["one", "two", "three"]


def test_a_failure_the_client_calls_final_is_a_dead_letter_at_once_and_the_group_goes_on(integration):
    dead, after = _job(integration, "final-refusal"), _job(integration, "after")
    client = RecordingClient(failing={"final-refusal"})
    assert client.drain((integration.pk, "c1")) == 2
    dead.refresh_from_db()
    after.refresh_from_db()
    assert (
        dead.status == MirrorJob.Status.DEAD
        and dead.attempt_count == 1
        and "final-refusal" in dead.last_error
    )
    assert after.status == MirrorJob.Status.DONE
    assert client.hints == []  # nothing to retry


def test_a_retried_job_waits_on_the_clients_schedule_and_holds_its_group_back(integration, settings):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 1
    failing, behind = _job(integration, "flaky"), _job(integration, "behind")
    client = RecordingClient(failing={"flaky"})
    assert client.drain((integration.pk, "c1")) == 1
    failing.refresh_from_db()
    behind.refresh_from_db()
    assert failing.status == MirrorJob.Status.FAILED and failing.attempt_count == 1
    delay = REGISTERED.delay_before(2)
    assert abs((failing.next_attempt_at - timezone.now()).total_seconds() - delay) < 5
    # One wake-up, for the time the ledger holds (the retry's next_attempt_at), never earlier.
    [(group, countdown)] = client.hints
    assert group == (integration.pk, "c1") and delay - 5 < countdown <= delay
    assert behind.status == MirrorJob.Status.PENDING  # order per group: not before its head


def test_the_last_allowed_attempt_failing_makes_a_dead_letter_and_a_resend_gives_one_more(integration):
    job = _job(integration, "flaky", max_attempts=1)
    client = RecordingClient(failing={"flaky"})
    client.drain((integration.pk, "c1"))
    job.refresh_from_db()
    assert job.status == MirrorJob.Status.DEAD
    assert client.resend([job.pk]) == 1
    job.refresh_from_db()
    assert job.status == MirrorJob.Status.PENDING and job.max_attempts == 2
    client.failing.clear()
    assert client.drain((integration.pk, "c1")) == 1
    job.refresh_from_db()
    assert job.status == MirrorJob.Status.DONE and job.attempt_count == 2


def test_the_sweeper_hints_each_group_with_a_job_overdue_once(integration):
    _job(integration, "a"), _job(integration, "b"), _job(integration, "c", chat="c2")
    client = RecordingClient()
    assert client.sweep(grace_seconds=0) == 2
    assert sorted(group for group, _ in client.hints) == [(integration.pk, "c1"), (integration.pk, "c2")]


def test_settle_is_the_same_schedule_for_every_client():
    assert REGISTERED.settle("delivered", number=1, max_attempts=5).outcome == "delivered"
    retry = INSTANCE.settle("retry", number=2, max_attempts=5)
    assert (retry.outcome, retry.delay) == ("retry", INSTANCE.delay_before(3))
    assert REGISTERED.settle("retry", number=5, max_attempts=5).outcome == "dead"  # attempts used up
    # A resend is one attempt and never starts a new retry chain.
    assert REGISTERED.settle("retry", number=1, max_attempts=5, last_chance=True).outcome == "dead"
    assert REGISTERED.settle("give_up", number=1, max_attempts=5).outcome == "dead"


def test_every_clients_queue_and_dead_letters_are_gauges(integration):
    from integrations.chatwoot.jobs import collect

    _job(integration, "due")
    _job(integration, "gone", status=MirrorJob.Status.DEAD, dead_at=timezone.now())
    readings = {reading.name: reading.values[()] for reading in collect()}
    assert readings == {"ponte_chatwoot_queue_depth": 1, "ponte_chatwoot_dead_letters": 1}


def test_a_head_whose_retry_fell_due_while_its_drain_ended_is_woken_at_once(integration):
    # The drain's last claim found it not due; by the wake-up its time had passed (a loaded worker).
    late = timezone.now() - timedelta(milliseconds=5)
    _job(integration, "flaky", status=MirrorJob.Status.FAILED, attempt_count=1, next_attempt_at=late)
    client = RecordingClient()
    client.wake((integration.pk, "c1"))
    [(group, countdown)] = client.hints
    assert group == (integration.pk, "c1") and countdown <= 0  # published at once, not left to the sweeper
