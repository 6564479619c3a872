"""One attempt at a time, in this process, against a real local receiver: signing, outcomes, claims,
connection-time SSRF refusal, resend, sweeper and purge. (The worker tests run the same code in Celery.)"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import timedelta

import pytest
import standardwebhooks
from django.core.cache import cache
from django.utils import timezone

from webhooks import outbox
from webhooks.models import Delivery, DeliveryAttempt, Webhook
from webhooks.services import emit, webhook_delete, webhook_update
from webhooks.transport import PostResult

pytestmark = pytest.mark.django_db


@pytest.fixture
def hook(session, receiver, allow_loopback) -> Webhook:
    return Webhook.objects.create(
        account=session.account, session=session, url=receiver.url, events=["message"], secret="s3cret"
    )


def _delivery(session, **data) -> Delivery:
    event = emit(session_id=session.id, name="message", data={"id": "M1", "text": "hi", **data})
    return Delivery.objects.get(event=event)


def test_a_delivery_is_signed_over_the_exact_raw_body(hook, session, receiver):
    delivery = _delivery(session, text="çà ✓")
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "delivered"

    (request,) = receiver.received
    expected = hmac.new(b"s3cret", request.body, hashlib.sha256).hexdigest()
    assert request.headers["x-webhook-signature"] == expected
    assert request.headers["content-type"] == "application/json"
    assert request.headers["x-webhook-id"] == request.headers["webhook-id"] == delivery.dispatch_id
    assert "T" in request.headers["x-webhook-timestamp"]
    # Standard Webhooks: the stock library verifies with the secret's bytes as the key.
    verified = standardwebhooks.Webhook(b"s3cret").verify(request.body, request.headers)
    assert verified["data"]["text"] == "çà ✓"
    as_whsec = "whsec_" + base64.b64encode(b"s3cret").decode()
    standardwebhooks.Webhook(as_whsec).verify(request.body, request.headers)
    assert json.loads(request.body) == delivery.payload


def test_a_standard_webhooks_secret_verifies_as_given(hook, session, receiver):
    secret = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
    webhook_update(webhook=hook, secret=secret)
    outbox.delivery_attempt(delivery_id=_delivery(session).pk)
    (request,) = receiver.received
    standardwebhooks.Webhook(secret).verify(request.body, request.headers)
    assert (
        request.headers["x-webhook-signature"]
        == hmac.new(secret.encode(), request.body, "sha256").hexdigest()
    )


def test_a_tampered_body_fails_verification(hook, session, receiver):
    outbox.delivery_attempt(delivery_id=_delivery(session).pk)
    (request,) = receiver.received
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(b"s3cret").verify(request.body + b" ", request.headers)


def test_without_a_secret_nothing_is_signed(hook, session, receiver):
    webhook_update(webhook=hook, secret="")
    outbox.delivery_attempt(delivery_id=_delivery(session).pk)
    (request,) = receiver.received
    assert "x-webhook-signature" not in request.headers
    assert "webhook-signature" not in request.headers
    assert request.headers["webhook-id"].startswith("msg_")


def test_a_failed_attempt_is_recorded_and_scheduled_after_one_second(hook, session, receiver):
    receiver.statuses = [500]
    delivery = _delivery(session)
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "retry"
    delivery.refresh_from_db()
    (attempt,) = delivery.attempts.all()
    assert delivery.status == Delivery.Status.FAILED
    assert delivery.attempt_count == 1
    assert delivery.last_status_code == 500
    assert delivery.next_attempt_at == attempt.finished_at + timedelta(seconds=1)
    assert attempt.status_code == 500
    assert attempt.response_excerpt == "receiver says no"
    assert attempt.outcome == "retry"
    # Not due yet: a second hint does nothing.
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "not-claimed"
    assert len(receiver.received) == 1


def test_a_claimed_delivery_cannot_be_claimed_twice(hook, session):
    delivery = _delivery(session)
    assert outbox._claim(delivery) is not None
    assert outbox._claim(delivery) is None
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "not-claimed"


def test_redirects_count_as_answers_and_are_not_followed(hook, session, receiver):
    receiver.statuses = [302]
    assert outbox.delivery_attempt(delivery_id=_delivery(session).pk) == "delivered"
    assert len(receiver.received) == 1


def test_long_answers_are_stored_truncated(hook, session, receiver):
    receiver.answer = "é".encode() * 5000
    delivery = _delivery(session)
    outbox.delivery_attempt(delivery_id=delivery.pk)
    attempt = DeliveryAttempt.objects.get(delivery=delivery)
    assert 1000 <= len(attempt.response_excerpt) <= DeliveryAttempt.RESPONSE_EXCERPT_CHARS
    assert attempt.response_excerpt.startswith("éé")


def test_a_name_resolving_to_loopback_is_refused_at_connection_time(session, receiver, settings):
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    port = receiver.server.server_address[1]
    hook = Webhook.objects.create(
        account=session.account, session=session, url=f"http://localhost:{port}/hook", events=["message"]
    )
    delivery = _delivery(session)
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = []  # the name now leads somewhere refused
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "retry"
    attempt = DeliveryAttempt.objects.get(delivery=delivery)
    assert attempt.status_code is None
    assert "Refused target" in attempt.error and "loopback" in attempt.error
    assert receiver.received == []
    assert hook.deliveries.get().status == Delivery.Status.FAILED


def test_the_last_failed_attempt_makes_a_dead_letter(hook, session, receiver):
    webhook_update(webhook=hook, retry_count=1)
    receiver.default = 503
    delivery = _delivery(session)
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "dead"
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.DEAD
    assert delivery.dead_at is not None


def test_a_resend_is_one_attempt_with_the_same_id_recording_who_asked(hook, session, receiver, admin_user):
    webhook_update(webhook=hook, retry_count=1)
    receiver.statuses = [500, 500]
    delivery = _delivery(session)
    outbox.delivery_attempt(delivery_id=delivery.pk)

    queued, skipped = outbox.deliveries_resend(deliveries=Delivery.objects.all(), requested_by=admin_user)
    assert (queued, skipped) == (1, 0)
    # It fails again: back to the dead letters, without a new chain of retries.
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "dead"
    outbox.deliveries_resend(deliveries=Delivery.objects.all(), requested_by=admin_user)
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "delivered"

    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.DELIVERED
    assert delivery.resend_requested_by == admin_user
    attempts = list(delivery.attempts.order_by("number"))
    assert [a.requested_by for a in attempts] == [None, admin_user, admin_user]
    assert [a.outcome for a in attempts] == ["dead", "dead", "delivered"]
    assert {r.headers["x-webhook-id"] for r in receiver.received} == {delivery.dispatch_id}


def test_deliveries_on_their_way_are_not_resent(hook, session, admin_user):
    _delivery(session)
    assert outbox.deliveries_resend(deliveries=Delivery.objects.all(), requested_by=admin_user) == (0, 1)


def test_a_deleted_webhooks_waiting_deliveries_become_dead_letters(hook, session, receiver):
    delivery = _delivery(session)
    webhook_delete(webhook=hook)
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.DEAD
    assert delivery.webhook is None
    assert outbox.delivery_attempt(delivery_id=delivery.pk) == "done"
    assert receiver.received == []


def test_waiting_deliveries_follow_a_patched_url(hook, session, make_receiver):
    delivery = _delivery(session)
    moved = make_receiver()
    webhook_update(webhook=hook, url=moved.url)
    outbox.delivery_attempt(delivery_id=delivery.pk)
    assert len(moved.received) == 1


def test_a_slow_target_gets_few_threads_and_waits_without_using_an_attempt(hook, session, receiver, settings):
    settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET = 1
    first, second = _delivery(session), _delivery(session)
    # The last attempt timed out: the target is slow, and one send to it is in flight.
    outbox._remember_speed(first, PostResult(None, "", 10_000, "timeout: read timed out"))
    assert outbox._acquire_slot(first) is True
    assert outbox.delivery_attempt(delivery_id=second.pk) == "deferred"
    second.refresh_from_db()
    assert second.status == Delivery.Status.PENDING
    assert second.attempt_count == 0
    assert receiver.received == []
    assert second.next_attempt_at >= timezone.now() + timedelta(seconds=4)  # half the 10 s timeout
    # A duplicate hint does not pull it forward.
    assert outbox.delivery_attempt(delivery_id=second.pk) == "not-claimed"
    # The slot comes back; a quick success clears the slow mark.
    outbox._release_slot(first)
    Delivery.objects.filter(pk=second.pk).update(next_attempt_at=timezone.now())
    assert outbox.delivery_attempt(delivery_id=second.pk) == "delivered"
    assert cache.get(outbox._target_key(first.target_url, "slow")) is None


def test_a_fast_target_shares_the_workers_up_to_its_cap(hook, session, receiver, settings):
    settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET = 3
    first, second = _delivery(session), _delivery(session)
    assert outbox._acquire_slot(first) is True
    assert outbox._acquire_slot(first) is True  # two sends in flight
    assert outbox.delivery_attempt(delivery_id=second.pk) == "delivered"  # the third slot
    assert outbox._acquire_slot(first) is True
    assert outbox._acquire_slot(first) is False  # the cap: 3 at once


def test_the_sweeper_finds_lost_and_stuck_deliveries(hook, session, django_capture_on_commit_callbacks):
    lost, stuck, _fresh, done = (_delivery(session) for _ in range(4))
    long_ago = timezone.now() - timedelta(minutes=5)
    Delivery.objects.filter(pk=lost.pk).update(next_attempt_at=long_ago)
    Delivery.objects.filter(pk=stuck.pk).update(status=Delivery.Status.SENDING, claimed_at=long_ago)
    Delivery.objects.filter(pk=done.pk).update(status=Delivery.Status.DELIVERED, next_attempt_at=long_ago)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert outbox.deliveries_sweep() == 2
    assert len(callbacks) == 1
    lost.refresh_from_db()
    assert lost.next_attempt_at > long_ago  # swept once per grace period, not on every run
    assert outbox.deliveries_sweep() == 1  # only the stuck one, until its claim is taken again
    assert outbox.delivery_attempt(delivery_id=stuck.pk) == "delivered"


def test_dead_letters_are_purged_after_seven_days(hook, session):
    old, recent, delivered = (_delivery(session) for _ in range(3))
    now = timezone.now()
    Delivery.objects.filter(pk=old.pk).update(status=Delivery.Status.DEAD, dead_at=now - timedelta(days=8))
    Delivery.objects.filter(pk=recent.pk).update(status=Delivery.Status.DEAD, dead_at=now - timedelta(days=6))
    Delivery.objects.filter(pk=delivered.pk).update(
        status=Delivery.Status.DELIVERED, delivered_at=now - timedelta(days=30)
    )
    assert outbox.dead_letters_purge() >= 1
    assert set(Delivery.objects.values_list("pk", flat=True)) == {recent.pk, delivered.pk}
