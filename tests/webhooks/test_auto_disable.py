"""Auto-disable: a webhook whose attempts all failed for PONTE_WEBHOOK_DISABLE_AFTER_SECONDS and at least
PONTE_WEBHOOK_DISABLE_AFTER_ATTEMPTS times is disabled; its waiting deliveries become dead letters, the
account gets an e-mail and a banner, and PATCH {"status": "active"} enables it again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.services import account_signup
from messaging.models import Session
from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Delivery, Webhook
from webhooks.outbox.deliveries import deliveries_resend
from webhooks.services import emit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings, allow_loopback):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0
    settings.PONTE_WEBHOOK_DISABLE_AFTER_SECONDS = 0
    settings.PONTE_WEBHOOK_DISABLE_AFTER_ATTEMPTS = 4


@pytest.fixture
def customer(default_plans, make_key, keyed_client):
    """An account with a user who signs in to the account area, a session and an admin key."""
    _user, account = account_signup(email="ana@example.com", password="a long pass phrase 42")
    account.plan = account.plan.__class__.objects.get(name="Empresarial")
    account.save()
    session = Session.objects.create(account=account, name="s", status=Session.Status.CONNECTED)
    return account, session, keyed_client(make_key(for_account=account))


def _fail_until_disabled(session, client, receiver, capture):
    hook = register(client, session, receiver.url, retryCount=5)
    with capture(execute=True):
        emit(session_id=session.id, name="message", data={"id": "M1"})
        emit(session_id=session.id, name="message", data={"id": "M2"})
        send_due()
    return hook


def test_failing_long_enough_disables_dead_letters_the_waiting_and_tells_the_account(
    customer, make_receiver, django_capture_on_commit_callbacks
):
    _account, session, client = customer
    receiver = make_receiver(default=500)
    hook = _fail_until_disabled(session, client, receiver, django_capture_on_commit_callbacks)

    record = client.get(f"/gateway/webhooks/{hook['id']}").json()
    assert record["status"] == "disabled"
    assert record["disabledReason"].startswith("Every delivery attempt failed since")
    assert record["disabledAt"] is not None
    # Four attempts (two batches of two) reached the threshold; both deliveries still had attempts left.
    assert len(receiver.received) == 4
    dead = Delivery.objects.filter(webhook_id=hook["id"])
    assert {d.status for d in dead} == {Delivery.Status.DEAD}
    assert all(d.last_error.startswith("Webhook disabled: ") for d in dead)
    (message,) = mail.outbox
    assert message.to == ["ana@example.com"] and hook["id"] in message.subject
    assert "status" in message.body and receiver.url in message.body
    # A disabled webhook's new events are kept, held: not attempted (test_disabled_keeps_events.py).
    emit(session_id=session.id, name="message", data={"id": "M3"})
    send_due()
    assert Delivery.objects.filter(webhook_id=hook["id"], status=Delivery.Status.HELD).count() == 1
    assert len(receiver.received) == 4
    # The account area shows a banner.
    browser = Client()
    browser.login(username="ana@example.com", password="a long pass phrase 42")
    for page in ("/account/", "/account/webhooks/"):
        html = browser.get(page).content.decode()
        assert 'id="webhooks-disabled"' in html and hook["id"] in html


def test_patch_status_active_enables_it_and_its_dead_letters_are_resendable(
    customer, make_receiver, django_capture_on_commit_callbacks
):
    _account, session, client = customer
    receiver = make_receiver(default=500)
    hook = _fail_until_disabled(session, client, receiver, django_capture_on_commit_callbacks)
    receiver.default = 200
    reply = patch(client, hook["id"], status="active")
    assert reply.status_code == 200
    assert (reply.json()["status"], reply.json()["disabledReason"], reply.json()["disabledAt"]) == (
        "active",
        None,
        None,
    )
    webhook = Webhook.objects.get(pk=hook["id"])
    assert (webhook.failed_attempts, webhook.failing_since) == (0, None)
    queued, _ = deliveries_resend(deliveries=Delivery.objects.filter(webhook=webhook), requested_by=None)
    emit(session_id=session.id, name="message", data={"id": "M3"})
    send_due()
    assert queued == 2
    assert Delivery.objects.filter(webhook=webhook, status=Delivery.Status.DELIVERED).count() == 3


def test_many_failures_in_a_short_time_are_not_enough(settings, customer, make_receiver):
    settings.PONTE_WEBHOOK_DISABLE_AFTER_SECONDS = 3600
    _account, session, client = customer
    receiver = make_receiver(default=500)
    hook = register(client, session, receiver.url, retryCount=10)
    emit(session_id=session.id, name="message", data={"id": "M1"})
    send_due()
    webhook = Webhook.objects.get(pk=hook["id"])
    assert (webhook.status, webhook.failed_attempts) == ("active", 10)
    # The same count, failing for more than the hour: the next failed attempt disables it.
    Webhook.objects.filter(pk=hook["id"]).update(failing_since=timezone.now() - timedelta(hours=2))
    emit(session_id=session.id, name="message", data={"id": "M2"})
    send_due()
    assert Webhook.objects.get(pk=hook["id"]).status == "disabled"


def test_a_success_resets_the_count(customer, make_receiver):
    _account, session, client = customer
    receiver = make_receiver(statuses=[500, 500, 500, 200])
    hook = register(client, session, receiver.url, retryCount=10)
    emit(session_id=session.id, name="message", data={"id": "M1"})
    send_due()
    webhook = Webhook.objects.get(pk=hook["id"])
    assert (webhook.status, webhook.failed_attempts, webhook.failing_since) == ("active", 0, None)


def test_the_settings_default_to_five_days_and_ten_attempts():
    from config.settings import apps

    assert apps.PONTE_WEBHOOK_DISABLE_AFTER_SECONDS == 432000
    assert apps.PONTE_WEBHOOK_DISABLE_AFTER_ATTEMPTS == 10
