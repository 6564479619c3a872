"""The delivery policy of instance webhooks against a real local receiver: 5 attempts, exponential
backoff (2, 4, 8, 16 s), 8 s timeout; timeouts, 5xx and 429 retried; other 4xx final.

Most tests make the attempts in this process (the same `outbox.delivery_attempt` the worker runs),
moving a retry's due time to now instead of waiting; the last one runs a real Celery worker."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.webhooks.instance_schema import validate_envelope
from tests.webhooks.instance_support import configure, deliveries_of, instance_session, message
from tests.webhooks.support import wait_for
from webhooks.models import Delivery
from webhooks.outbox import drains as outbox
from webhooks.services import emit


@pytest.fixture
def session(account):
    return instance_session(account)


@pytest.fixture
def hooked(session, receiver, allow_loopback):
    configure(session, webhook_message=receiver.url)
    return session


def _delivery(session) -> Delivery:
    (delivery,) = deliveries_of(session, "message", message(text="hello"))
    return delivery


def _run_until_settled(delivery: Delivery, *, limit: int = 10) -> list[str]:
    """Attempt the delivery until it is delivered or dead, making each retry due at once."""
    outcomes: list[str] = []
    for _ in range(limit):
        outcomes.append(outbox.delivery_attempt(delivery_id=delivery.pk))
        if outcomes[-1] in ("delivered", "dead"):
            return outcomes
        Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    raise AssertionError(f"not settled after {limit} attempts: {outcomes}")


@pytest.mark.django_db
def test_a_2xx_answer_delivers_the_meta_envelope_at_the_first_try(hooked, receiver):
    delivery = _delivery(hooked)
    assert _run_until_settled(delivery) == ["delivered"]
    (request,) = receiver.received
    body = json.loads(request.body)
    validate_envelope(body)
    assert body == delivery.payload
    assert request.headers["content-type"] == "application/json"
    assert request.headers["x-webhook-id"] == delivery.dispatch_id
    assert "x-webhook-signature" not in request.headers  # instance webhooks have no secret


@pytest.mark.django_db
@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422])
def test_a_4xx_answer_is_not_retried(hooked, receiver, status):
    receiver.statuses = [status]
    delivery = _delivery(hooked)
    assert _run_until_settled(delivery) == ["dead"]
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.DEAD
    assert delivery.attempt_count == 1
    assert delivery.last_status_code == status
    assert len(receiver.received) == 1


@pytest.mark.django_db
def test_a_429_answer_is_retried(hooked, receiver):
    receiver.statuses = [429, 429]
    delivery = _delivery(hooked)
    assert _run_until_settled(delivery) == ["retry", "retry", "delivered"]
    assert [a.status_code for a in delivery.attempts.order_by("number")] == [429, 429, 200]


@pytest.mark.django_db
def test_5xx_answers_are_retried(hooked, receiver):
    receiver.statuses = [500, 502, 503]
    delivery = _delivery(hooked)
    assert _run_until_settled(delivery) == ["retry", "retry", "retry", "delivered"]
    assert len({r.headers["x-webhook-id"] for r in receiver.received}) == 1  # same id on every retry


@pytest.mark.django_db
def test_five_failed_attempts_make_a_dead_letter_with_exponential_waits(hooked, receiver):
    receiver.default = 503
    delivery = _delivery(hooked)
    waits = []
    for number in range(1, 6):
        outcome = outbox.delivery_attempt(delivery_id=delivery.pk)
        delivery.refresh_from_db()
        if number < 5:
            assert outcome == "retry"
            attempt = delivery.attempts.get(number=number)
            waits.append((delivery.next_attempt_at - attempt.finished_at).total_seconds())
            Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        else:
            assert outcome == "dead"
    assert waits == [2, 4, 8, 16]
    assert delivery.status == Delivery.Status.DEAD
    assert delivery.attempt_count == 5
    assert len(receiver.received) == 5


@pytest.mark.django_db
def test_a_retry_is_not_sent_before_it_is_due(hooked, receiver):
    receiver.statuses = [500]
    delivery = _delivery(hooked)
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "retry"
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "not-claimed"
    assert len(receiver.received) == 1


# Slow (tests/tiers.py): waits out the real 8-second timeout.
@pytest.mark.slow
@pytest.mark.django_db
def test_a_receiver_that_does_not_answer_within_8_seconds_times_out_and_is_retried(
    hooked, make_receiver, session
):
    slow = make_receiver(hang=12)
    configure(session, webhook_message=slow.url)
    delivery = _delivery(session)
    assert delivery.timeout_seconds == 8.0
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "retry"
    slow.release()
    attempt = delivery.attempts.get()
    assert attempt.status_code is None
    assert attempt.error.startswith("timeout")
    # The receiver recovers: the retry is delivered.
    slow.hang = 0
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "delivered"


@pytest.mark.django_db
def test_a_refused_connection_is_retried(session, allow_loopback):
    configure(session, webhook_message="http://127.0.0.1:9/closed")  # nothing listens on port 9
    delivery = _delivery(session)
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "retry"
    assert delivery.attempts.get().error.startswith("connection error")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_delivers_what_the_put_configured_retrying_a_503(
    start_worker, session, receiver, allow_loopback
):
    start_worker()
    receiver.statuses = [503]
    reply = APIClient().put(
        f"/instances/{session.instance_key}/instance",
        {"allowWebhook": True, "webhookMessage": receiver.url},
        format="json",
    )
    assert reply.status_code == 200
    event = emit(session_id=session.id, name="message", data=message(text="via the worker"))

    delivery = wait_for(
        lambda: Delivery.objects.filter(event=event, status__in=["delivered", "dead"]).first(),
        what="the instance delivery",
    )
    assert delivery.status == Delivery.Status.DELIVERED
    assert delivery.attempt_count == 2
    first, second = receiver.received
    assert first.body == second.body
    body = json.loads(second.body)
    validate_envelope(body)
    assert body["entry"][0]["changes"][0]["value"]["messages"][0]["text"] == {"body": "via the worker"}
    assert delivery.next_attempt_at - delivery.attempts.get(number=1).finished_at == timedelta(seconds=0.02)
