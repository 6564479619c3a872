"""One delivery that cannot be built or sent (a custom header stored before headers were checked to the
end of the string, a row no HTTP client accepts) is a failed attempt of that delivery alone: recorded,
retried, dead-lettered and counted for auto-disable, while the other webhooks' deliveries to the same URL
in the same batch go on."""

from __future__ import annotations

import json
import time

import pytest

from tests.webhooks.sender_depth import send_due
from webhooks.delivery_errors import customer_error_text
from webhooks.models import Delivery, DeliveryAttempt, Webhook
from webhooks.outbox import drains as outbox
from webhooks.services import emit

pytestmark = pytest.mark.django_db

# What the gateway accepted before the fix: Python's `$` matched before the final line feed.
STORED_BEFORE_THE_FIX = [{"X-A": "abc\n"}, {"X-A\n": "abc"}, {"X-A": "a\r\nInjected: yes"}]


@pytest.fixture(autouse=True)
def _loopback(allow_loopback):
    pass


def _two_webhooks(session, url: str) -> tuple[Webhook, Webhook]:
    """A webhook that cannot be sent, registered first (its delivery heads the batch), and a good one,
    both on the same session and the same URL."""
    bad = Webhook.objects.create(
        account=session.account, session=session, url=url, events=["message"], retry_count=3
    )
    good = Webhook.objects.create(account=session.account, session=session, url=url, events=["message"])
    return bad, good


def _drain_once(url: str) -> float:
    """One hint's drain of the target, as a worker runs it; the seconds it took."""
    started = time.monotonic()
    pk = Delivery.objects.filter(target_url=url).order_by("pk").values_list("pk", flat=True)[0]
    outbox.delivery_attempt(delivery_id=pk, target_url=url)
    return time.monotonic() - started


def _good_arrives_and_bad_is_a_failed_attempt(receiver, bad: Webhook, good: Webhook, error: str) -> None:
    seconds = _drain_once(receiver.url)
    (request,) = receiver.received
    assert json.loads(request.body)["data"]["id"] == "M1"
    assert seconds < 1  # generous: one POST to a local receiver
    assert Delivery.objects.get(webhook=good).status == Delivery.Status.DELIVERED
    failed = Delivery.objects.get(webhook=bad)
    assert (failed.status, failed.attempt_count, failed.claim_token) == (Delivery.Status.FAILED, 1, "")
    assert error in failed.last_error
    assert customer_error_text(failed.last_error).startswith("Not sent: ")  # the account area's words
    (attempt,) = DeliveryAttempt.objects.filter(delivery=failed)
    assert (attempt.outcome, attempt.status_code) == ("retry", None)
    assert error in attempt.error
    bad.refresh_from_db()
    assert bad.failed_attempts == 1 and bad.failing_since is not None


@pytest.mark.parametrize("headers", STORED_BEFORE_THE_FIX)
def test_a_header_stored_before_the_fix_fails_its_own_delivery_and_the_good_one_arrives(
    session, receiver, headers
):
    bad, good = _two_webhooks(session, receiver.url)
    Webhook.objects.filter(pk=bad.pk).update(headers=headers)  # as the old check let it in
    emit(session_id=session.id, name="message", data={"id": "M1"})
    _good_arrives_and_bad_is_a_failed_attempt(receiver, bad, good, "custom header")


def test_a_delivery_that_raises_while_it_is_sent_fails_alone_and_the_good_one_arrives(session, receiver):
    bad, good = _two_webhooks(session, receiver.url)
    emit(session_id=session.id, name="message", data={"id": "M1"})
    # A timeout urllib3 refuses to use (it raises ValueError before anything is sent).
    Delivery.objects.filter(webhook=bad).update(timeout_seconds=0)
    _good_arrives_and_bad_is_a_failed_attempt(receiver, bad, good, "could not be sent")


def test_a_delivery_that_cannot_be_sent_is_retried_then_dead_lettered_and_disables_its_webhook(
    settings, session, receiver
):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0
    settings.PONTE_WEBHOOK_DISABLE_AFTER_SECONDS = 0
    settings.PONTE_WEBHOOK_DISABLE_AFTER_ATTEMPTS = 6
    bad, good = _two_webhooks(session, receiver.url)
    Webhook.objects.filter(pk=bad.pk).update(headers={"X-A": "abc\n"})
    emit(session_id=session.id, name="message", data={"id": "M1"})
    emit(session_id=session.id, name="message", data={"id": "M2"})
    send_due()
    assert sorted(json.loads(r.body)["data"]["id"] for r in receiver.received) == ["M1", "M2"]
    dead = Delivery.objects.filter(webhook=bad)
    assert [(d.status, d.attempt_count) for d in dead] == [(Delivery.Status.DEAD, 3)] * 2
    bad.refresh_from_db()
    assert bad.status == Webhook.Status.DISABLED and bad.failed_attempts == 6
    assert Webhook.objects.get(pk=good.pk).status == Webhook.Status.ACTIVE
