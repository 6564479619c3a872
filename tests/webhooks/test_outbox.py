"""One attempt at a time, in this process, against a real local receiver: signing, outcomes, claims,
connection-time SSRF refusal, resend, sweeper and purge. (The worker tests run the same code in Celery.)"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import threading
import time
from datetime import timedelta

import pytest
import standardwebhooks
from django.utils import timezone

from jobs.lease import Keeper
from webhooks.models import Delivery, DeliveryAttempt, Webhook
from webhooks.outbox import deliveries as outbox
from webhooks.outbox import drains, throttle
from webhooks.registered.services import webhook_delete, webhook_update
from webhooks.services import emit

pytestmark = pytest.mark.django_db


def _delivery(session, **data) -> Delivery:
    event = emit(session_id=session.id, name="message", data={"id": "M1", "text": "hi", **data})
    return Delivery.objects.get(event=event)


def test_a_delivery_is_signed_over_the_exact_raw_body(hook, session, receiver):
    delivery = _delivery(session, text="çà ✓")
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "delivered"

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
    drains.delivery_attempt(delivery_id=_delivery(session).pk)
    (request,) = receiver.received
    standardwebhooks.Webhook(secret).verify(request.body, request.headers)
    assert (
        request.headers["x-webhook-signature"]
        == hmac.new(secret.encode(), request.body, "sha256").hexdigest()
    )


def test_a_tampered_body_fails_verification(hook, session, receiver):
    drains.delivery_attempt(delivery_id=_delivery(session).pk)
    (request,) = receiver.received
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(b"s3cret").verify(request.body + b" ", request.headers)


def test_without_a_secret_nothing_is_signed(hook, session, receiver):
    webhook_update(webhook=hook, secret="")
    drains.delivery_attempt(delivery_id=_delivery(session).pk)
    (request,) = receiver.received
    assert "x-webhook-signature" not in request.headers
    assert "webhook-signature" not in request.headers
    assert request.headers["webhook-id"].startswith("msg_")


def test_a_failed_attempt_is_recorded_and_scheduled_after_one_second(hook, session, receiver):
    receiver.statuses = [500]
    delivery = _delivery(session)
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "retry"
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
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "not-claimed"
    assert len(receiver.received) == 1


def test_a_claimed_delivery_cannot_be_claimed_twice(hook, session):
    delivery = _delivery(session)
    _token, (claimed,) = outbox.deliveries_claim(delivery.target_url, limit=10)
    assert claimed.pk == delivery.pk
    assert outbox.deliveries_claim(delivery.target_url, limit=10)[1] == []
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "not-claimed"


def test_a_claim_takes_waiting_and_stuck_deliveries_of_its_target_oldest_first(hook, session, make_receiver):
    stuck, fresh, waiting, held, delivered, later = (_delivery(session, id=f"M{n}") for n in range(6))
    now = timezone.now()
    Delivery.objects.filter(pk=stuck.pk).update(
        status=Delivery.Status.SENDING,
        claimed_at=now - timedelta(hours=2),
        next_attempt_at=now - timedelta(hours=3),
    )
    Delivery.objects.filter(pk=waiting.pk).update(
        status=Delivery.Status.FAILED, attempt_count=1, next_attempt_at=now - timedelta(hours=1)
    )
    Delivery.objects.filter(pk=held.pk).update(status=Delivery.Status.SENDING, claimed_at=now)
    Delivery.objects.filter(pk=delivered.pk).update(status=Delivery.Status.DELIVERED)
    Delivery.objects.filter(pk=later.pk).update(next_attempt_at=now + timedelta(hours=1))
    other = Webhook.objects.create(
        account=session.account, session=session, url=make_receiver().url, events=["message"]
    )
    event = emit(session_id=session.id, name="message", data={"id": "M6", "text": "hi"})
    elsewhere = Delivery.objects.get(webhook=other, event=event)

    _token, claimed = outbox.deliveries_claim(hook.url, limit=10)

    # Oldest due first, a row whose claim outlived its lease (its worker died) among them; the one held
    # by a live claim, the delivered one, the one due later and the other target's are left.
    assert [c.pk for c in claimed] == [
        stuck.pk,
        waiting.pk,
        fresh.pk,
        Delivery.objects.get(webhook=hook, event=event).pk,
    ]
    assert outbox.deliveries_claim(hook.url, limit=10)[1] == []
    assert outbox.deliveries_claim(other.url, limit=10)[1][0].pk == elsewhere.pk


def test_one_hint_sends_every_due_delivery_of_its_target_in_batches(hook, session, receiver, settings):
    settings.PONTE_WEBHOOK_BATCH_SIZE = 2
    deliveries = [_delivery(session, id=f"M{n}") for n in range(5)]
    later = _delivery(session, id="later")
    Delivery.objects.filter(pk=later.pk).update(next_attempt_at=timezone.now() + timedelta(hours=1))

    assert drains.delivery_attempt(delivery_id=deliveries[-1].pk) == "delivered"

    # Oldest due first, each recorded as its own attempt; the one due later waits.
    assert [json.loads(r.body)["data"]["id"] for r in receiver.received] == [f"M{n}" for n in range(5)]
    assert set(
        Delivery.objects.filter(pk__in=[d.pk for d in deliveries]).values_list("status", flat=True)
    ) == {Delivery.Status.DELIVERED}
    attempts = list(DeliveryAttempt.objects.filter(outcome="delivered").order_by("started_at"))
    assert len(attempts) == 5
    # Each attempt carries its own POST's times, not its batch's.
    for first, second in itertools.pairwise(attempts):
        assert first.started_at <= first.finished_at <= second.started_at
    assert Delivery.objects.get(pk=later.pk).status == Delivery.Status.PENDING
    # Its own hint finds it already sent.
    assert drains.delivery_attempt(delivery_id=deliveries[0].pk) == "done"


def test_a_slow_answer_stops_the_batch_and_gives_the_rest_back_unattempted(
    hook, session, receiver, settings, django_capture_on_commit_callbacks
):
    settings.PONTE_WEBHOOK_SLOW_SECONDS = 0.05
    receiver.hang = 0.2
    first, second, third = (_delivery(session) for _ in range(3))
    with django_capture_on_commit_callbacks(execute=False) as handed_over:
        assert drains.delivery_attempt(delivery_id=first.pk) == "delivered"
    assert len(receiver.received) == 1
    assert throttle.is_slow(first.target_url)
    for delivery in (second, third):
        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempt_count, delivery.claim_token) == (
            Delivery.Status.PENDING,
            0,
            "",
        )
    assert len(handed_over) == 1  # a new hint, a moment later, for what is left
    # The next hint sends the rest (one per claim while the target is slow); quick answers clear the mark.
    receiver.hang = 0
    # What counts as quick is raised too, so a loaded test machine's slower POSTs still count as quick.
    settings.PONTE_WEBHOOK_SLOW_SECONDS = 2
    assert drains.delivery_attempt(delivery_id=second.pk) == "delivered"
    assert len(receiver.received) == 3
    assert not throttle.is_slow(first.target_url)


def test_a_drain_hands_over_to_a_new_hint_when_its_time_is_up(
    hook, session, receiver, settings, django_capture_on_commit_callbacks
):
    settings.PONTE_WEBHOOK_DRAIN_SECONDS = 0
    first, second = _delivery(session), _delivery(session)
    with django_capture_on_commit_callbacks(execute=False) as handed_over:
        assert drains.delivery_attempt(delivery_id=first.pk) == "delivered"
    assert len(receiver.received) == 1  # at least one delivery per hint, however little the time
    assert len(handed_over) == 1
    assert drains.delivery_attempt(delivery_id=second.pk) == "delivered"


def test_redirects_count_as_answers_and_are_not_followed(hook, session, receiver):
    receiver.statuses = [302]
    assert drains.delivery_attempt(delivery_id=_delivery(session).pk) == "delivered"
    assert len(receiver.received) == 1


def test_long_answers_are_stored_truncated(hook, session, receiver):
    receiver.answer = "é".encode() * 5000
    delivery = _delivery(session)
    drains.delivery_attempt(delivery_id=delivery.pk)
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
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "retry"
    attempt = DeliveryAttempt.objects.get(delivery=delivery)
    assert attempt.status_code is None
    # What was refused and why goes to the log; the attempt (shown in statistics) stays generic.
    assert attempt.error.startswith("Refused target: url refused at connection time")
    assert "127.0.0.1" not in attempt.error and "loopback" not in attempt.error
    assert receiver.received == []
    assert hook.deliveries.get().status == Delivery.Status.FAILED


def test_the_last_failed_attempt_makes_a_dead_letter(hook, session, receiver):
    webhook_update(webhook=hook, retry_count=1)
    receiver.default = 503
    delivery = _delivery(session)
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "dead"
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.DEAD
    assert delivery.dead_at is not None


def test_a_resend_is_one_attempt_with_the_same_id_recording_who_asked(hook, session, receiver, admin_user):
    webhook_update(webhook=hook, retry_count=1)
    receiver.statuses = [500, 500]
    delivery = _delivery(session)
    drains.delivery_attempt(delivery_id=delivery.pk)

    queued, skipped = outbox.deliveries_resend(deliveries=Delivery.objects.all(), requested_by=admin_user)
    assert (queued, skipped) == (1, 0)
    # It fails again: back to the dead letters, without a new chain of retries.
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "dead"
    outbox.deliveries_resend(deliveries=Delivery.objects.all(), requested_by=admin_user)
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "delivered"

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
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "done"
    assert receiver.received == []


def test_waiting_deliveries_follow_a_patched_url(hook, session, make_receiver):
    delivery = _delivery(session)
    moved = make_receiver()
    webhook_update(webhook=hook, url=moved.url)
    drains.delivery_attempt(delivery_id=delivery.pk)
    assert len(moved.received) == 1


def test_a_slow_target_gets_few_threads_and_waits_without_using_an_attempt(hook, session, receiver, settings):
    settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET = 1
    delivery = _delivery(session)
    # The last attempt timed out: the target is slow, and one drain of it is under way.
    throttle.remember_speed(delivery.target_url, slow=True, answered=False, was_slow=False)
    held, slow = throttle.slot_take(delivery.target_url)
    assert held and slow
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "not-claimed"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count, receiver.received) == (Delivery.Status.PENDING, 0, [])
    # The holder lets go and looks again (as every drain does): sent, and the slow mark is gone.
    throttle.slot_release(held)
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "delivered"
    assert not throttle.is_slow(delivery.target_url)


def test_a_fast_target_shares_the_workers_up_to_its_cap(hook, session, receiver, settings):
    settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET = 3
    delivery = _delivery(session)
    url = delivery.target_url
    assert throttle.slot_take(url)[0]
    assert throttle.slot_take(url)[0]  # two drains under way
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "delivered"  # the third slot
    assert throttle.slot_take(url)[0]
    assert throttle.slot_take(url) == (None, False)  # the cap: 3 at once


def test_a_slow_target_s_drain_gives_back_a_slot_past_its_cap_at_once(hook, session, receiver, settings):
    settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET = 3
    settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_SLOW_TARGET = 1
    url = _delivery(session).target_url
    first, slow = throttle.slot_take(url)
    assert first and not slow
    throttle.remember_speed(url, slow=True, answered=False, was_slow=False)
    assert throttle.slot_take(url) == (None, True)  # the slow cap (1) is held
    throttle.slot_release(first)
    second, slow = throttle.slot_take(url)
    assert second == first and slow  # the slot tried past the cap was given back: the first is free


def test_no_cap_takes_no_slot_and_still_reads_the_slow_mark(hook, session, settings):
    settings.PONTE_WEBHOOK_MAX_IN_FLIGHT_PER_TARGET = 0
    url = _delivery(session).target_url
    assert throttle.slot_take(url) == ("", False)
    throttle.remember_speed(url, slow=True, answered=False, was_slow=False)
    held, slow = throttle.slot_take(url)
    assert held and slow  # slow: the slow cap (2 by default) applies


def test_one_hint_per_target_waits_in_a_shared_queue(settings, tmp_path):
    url = "https://receiver.example/hook"
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # A cache of this process only: every delivery is hinted (the worker could not clear the flag).
    assert throttle.hint_wanted(url) and throttle.hint_wanted(url)
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": tmp_path}
    }
    assert throttle.hint_wanted(url)
    assert not throttle.hint_wanted(url)  # one is queued: its drain sends this one too
    assert throttle.hint_wanted("https://receiver.example/other")  # flags are per target
    assert throttle.hint_wanted(url, force=True)  # the sweeper, a drain handing over
    throttle.hint_taken(url)  # a worker picked the hint up
    assert throttle.hint_wanted(url)


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
    assert drains.delivery_attempt(delivery_id=stuck.pk) == "delivered"


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


@pytest.fixture
def shared_cache(settings, tmp_path):
    """A cache every process could share (as Redis is): the hint flag is in force."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": tmp_path}
    }


def test_a_drain_keeps_the_hint_flag_until_nothing_is_left_then_clears_it(
    session, make_receiver, allow_loopback, shared_cache
):
    receiver = make_receiver(hang=0.5)
    Webhook.objects.create(account=session.account, session=session, url=receiver.url, events=["message"])
    delivery = _delivery(session)
    url = delivery.target_url
    assert throttle.hint_wanted(url)  # as emit() does: the flag is set and one hint is on its way
    during: list[bool] = []
    # While the POST is out, an event committed now would find the flag up: no hint of its own, it
    # goes in the drain's next batch.
    looker = threading.Thread(
        target=lambda: receiver.arrived.wait(5) and during.append(throttle.hint_wanted(url))
    )
    looker.start()
    assert drains.delivery_attempt(delivery_id=delivery.pk) == "delivered"
    looker.join()
    assert during == [False]
    # Nothing left: the flag is down, so the next event brings a hint of its own.
    assert throttle.hint_wanted(url)


def test_what_waits_behind_a_batch_out_for_long_gets_one_hint(
    hook, session, shared_cache, settings, django_capture_on_commit_callbacks
):
    settings.PONTE_WEBHOOK_SLOW_SECONDS = 1
    waiting = _delivery(session)
    url = waiting.target_url
    assert throttle.hint_wanted(url)  # held by the drain whose batch is out
    keeper = Keeper(outbox.TABLE, background=False)
    helped: list[str] = []

    def helper(target: str):
        return lambda: (helped.append(target), outbox.help_behind(target, waiting.pk))

    other = "https://receiver.example/other"
    with (
        django_capture_on_commit_callbacks(execute=False) as callbacks,
        keeper.claim("long", long_after=0.5, when_long=helper(url)),
    ):
        start = time.monotonic()
        keeper.beat(now=start + 0.1)  # not long yet
        # Out since about `start`: at +0.6 not yet past its 0.7.
        with keeper.claim("short", long_after=0.7, when_long=helper(other)):
            keeper.beat(now=start + 0.55)
            keeper.beat(now=start + 0.6)  # once per batch
    assert helped == [url] and len(callbacks) == 1


def test_a_hint_carrying_the_url_from_before_a_patch_still_reaches_the_new_url(hook, session, make_receiver):
    delivery = _delivery(session)
    old_url = delivery.target_url
    moved = make_receiver()
    webhook_update(webhook=hook, url=moved.url)
    assert drains.delivery_attempt(delivery_id=delivery.pk, target_url=old_url) == "delivered"
    assert len(moved.received) == 1
