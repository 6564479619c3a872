"""Writing a batch's outcomes (webhooks.outbox.store's record_batch_counted): one statement on
PostgreSQL, a transaction elsewhere; only what the claim still holds is written."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from webhooks.models import Delivery, DeliveryAttempt, Webhook
from webhooks.outbox import deliveries as outbox
from webhooks.outbox.store import Outcome, store
from webhooks.services import emit

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("each_store")]


@pytest.fixture
def claimed(session, allow_loopback) -> tuple[str, list]:
    Webhook.objects.create(
        account=session.account, session=session, url="http://127.0.0.1:9/hook", events=["message"]
    )
    for n in range(3):
        emit(session_id=session.id, name="message", data={"id": f"M{n}", "text": "hi"})
    return outbox.deliveries_claim("http://127.0.0.1:9/hook", limit=10)


def _attempt(delivery, number: int, outcome: str, status: int | None) -> DeliveryAttempt:
    now = timezone.now()
    return DeliveryAttempt(
        delivery_id=delivery.pk,
        number=number,
        scheduled_at=delivery.scheduled_at,
        started_at=now,
        finished_at=now,
        status_code=status,
        duration_ms=12,
        response_excerpt="ok",
        error="",
        outcome=outcome,
    )


def test_a_batch_is_written_only_for_the_deliveries_its_claim_still_holds(claimed):
    token, (first, second, lost) = claimed
    # The third one's lease ran out and another drain claimed it: it is that drain's to write.
    Delivery.objects.filter(pk=lost.pk).update(claim_token="another-drain")
    now = timezone.now()
    states = [(d.pk, Outcome(Delivery.Status.DELIVERED, 1, 200, "", delivered_at=now)) for d in claimed[1]]
    attempts = [_attempt(d, 1, "delivered", 200) for d in claimed[1]]

    written = store().record_batch_counted(states, attempts, token=token, now=now, webhooks={})[0]

    assert written == {first.pk, second.pk}
    for delivery in (first, second):
        row = Delivery.objects.get(pk=delivery.pk)
        assert (row.status, row.attempt_count, row.last_status_code, row.claim_token) == (
            "delivered",
            1,
            200,
            "",
        )
        assert row.delivered_at == now and row.claimed_at is None
        (attempt,) = DeliveryAttempt.objects.filter(delivery_id=delivery.pk)
        assert (attempt.number, attempt.status_code, attempt.duration_ms, attempt.outcome) == (
            1,
            200,
            12,
            "delivered",
        )
    untouched = Delivery.objects.get(pk=lost.pk)
    assert (untouched.status, untouched.claim_token) == ("sending", "another-drain")
    assert not DeliveryAttempt.objects.filter(delivery_id=lost.pk).exists()


def test_outcomes_without_an_attempt_or_a_time_keep_what_the_row_had(claimed):
    token, (retried, dead, _third) = claimed
    now = timezone.now()
    retry_at = now + timedelta(seconds=30)
    scheduled = Delivery.objects.get(pk=dead.pk).next_attempt_at
    states = [
        (retried.pk, Outcome(Delivery.Status.FAILED, 1, 503, "HTTP 503", next_attempt_at=retry_at)),
        # A deleted webhook's delivery dies without an attempt, and no next time is set.
        (dead.pk, Outcome(Delivery.Status.DEAD, 0, None, "Webhook deleted before delivery.", dead_at=now)),
    ]

    written = store().record_batch_counted(
        states, [_attempt(retried, 1, "retry", 503)], token=token, now=now, webhooks={}
    )[0]

    assert written == {retried.pk, dead.pk}
    failed = Delivery.objects.get(pk=retried.pk)
    assert (failed.status, failed.next_attempt_at, failed.last_error) == ("failed", retry_at, "HTTP 503")
    assert failed.delivered_at is None and failed.dead_at is None
    gone = Delivery.objects.get(pk=dead.pk)
    assert (gone.status, gone.dead_at, gone.last_status_code, gone.next_attempt_at) == (
        "dead",
        now,
        None,
        scheduled,
    )
    assert not DeliveryAttempt.objects.filter(delivery_id=dead.pk).exists()
    assert DeliveryAttempt.objects.get(delivery_id=retried.pk).outcome == "retry"


def test_an_empty_batch_writes_nothing():
    assert store().record_batch_counted([], [], token="t", now=timezone.now(), webhooks={})[0] == set()
