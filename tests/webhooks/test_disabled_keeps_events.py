"""While a webhook is disabled (by its owner or auto-disabled) its events are kept: each gets a delivery
held back (status `held`: not attempted, not counted as a failure, never a dead letter), sent once the
webhook is enabled again, each with its own webhook-id; a replay of the window does not send them twice."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.services import account_signup
from messaging.models import Session
from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Delivery, Webhook
from webhooks.outbox import deliveries as outbox
from webhooks.outbox import retention
from webhooks.services import emit

pytestmark = pytest.mark.django_db

HELD = Delivery.Status.HELD


@pytest.fixture(autouse=True)
def _fast(settings, allow_loopback):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0
    settings.PONTE_WEBHOOK_DISABLE_AFTER_SECONDS = 0
    settings.PONTE_WEBHOOK_DISABLE_AFTER_ATTEMPTS = 2


def _five_while_disabled(session) -> list[str]:
    for n in range(5):
        emit(session_id=session.id, name="message", data={"id": f"M{n}"})
    held = Delivery.objects.filter(status=HELD).order_by("pk")
    assert held.count() == 5
    return list(held.values_list("dispatch_id", flat=True))


def test_events_while_disabled_are_held_not_attempted_not_counted_not_dead_lettered(
    keyed_client, admin_key, session, receiver
):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url)
    assert patch(client, hook["id"], status="disabled").json()["status"] == "disabled"
    _five_while_disabled(session)
    send_due()
    outbox.deliveries_sweep(grace_seconds=0, lease_seconds=0)
    send_due()
    assert receiver.received == []
    assert set(Delivery.objects.values_list("status", "attempt_count", "dead_at")) == {(HELD, 0, None)}
    webhook = Webhook.objects.get(pk=hook["id"])
    assert (webhook.failed_attempts, webhook.failing_since) == (0, None)
    # Nothing is replayed while it is disabled: enabling it sends what was kept.
    since = (timezone.now() - timedelta(hours=1)).isoformat()
    reply = client.post(f"/gateway/webhooks/{hook['id']}/replay", {"since": since}, format="json")
    assert (reply.status_code, reply.json()) == (409, {"error": "Webhook disabled"})


def test_five_events_while_disabled_arrive_exactly_once_with_their_ids_after_enable_and_replay(
    keyed_client, admin_key, session, receiver
):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, secret="s")
    started = timezone.now() - timedelta(seconds=1)
    patch(client, hook["id"], status="disabled")
    ids = _five_while_disabled(session)
    assert patch(client, hook["id"], status="active").status_code == 200
    reply = client.post(
        f"/gateway/webhooks/{hook['id']}/replay", {"since": started.isoformat()}, format="json"
    )
    assert reply.status_code == 202
    send_due()
    assert sorted(r.headers["webhook-id"] for r in receiver.received) == sorted(ids)
    assert sorted(r.headers["x-webhook-id"] for r in receiver.received) == sorted(ids)
    assert set(Delivery.objects.values_list("status", flat=True)) == {Delivery.Status.DELIVERED}


def test_an_auto_disabled_webhook_keeps_its_events_and_the_account_area_s_enable_sends_them(
    default_plans, make_key, keyed_client, make_receiver
):
    _user, account = account_signup(email="ana@example.com", password="a long pass phrase 42")
    session = Session.objects.create(account=account, name="s", status=Session.Status.CONNECTED)
    client = keyed_client(make_key(for_account=account))
    receiver = make_receiver(default=500)
    hook = register(client, session, receiver.url, retryCount=5)
    emit(session_id=session.id, name="message", data={"id": "failing"})
    send_due()
    assert Webhook.objects.get(pk=hook["id"]).status == Webhook.Status.DISABLED
    ids = _five_while_disabled(session)
    receiver.default = 200
    browser = Client()
    browser.login(username="ana@example.com", password="a long pass phrase 42")
    html = browser.get("/account/webhooks/").content.decode()
    assert "5 events" in html  # the banner says what is kept
    reply = browser.post(f"/account/webhooks/{hook['id']}/enable/", follow=True)
    assert reply.status_code == 200
    send_due()
    delivered = [r.headers["webhook-id"] for r in receiver.received if r.headers.get("webhook-id") in ids]
    assert sorted(delivered) == sorted(ids)


def test_held_deliveries_follow_a_new_url_and_die_with_a_deleted_webhook(
    keyed_client, admin_key, session, make_receiver
):
    client = keyed_client(admin_key)
    old, new = make_receiver(), make_receiver()
    hook = register(client, session, old.url)
    patch(client, hook["id"], status="disabled")
    _five_while_disabled(session)
    patch(client, hook["id"], url=new.url)
    assert set(Delivery.objects.values_list("target_url", flat=True)) == {new.url}
    assert client.delete(f"/gateway/webhooks/{hook['id']}").status_code in (200, 204)
    assert set(Delivery.objects.values_list("status", flat=True)) == {Delivery.Status.DEAD}


def test_held_deliveries_are_kept_seven_days_then_purged(keyed_client, admin_key, session, receiver):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url)
    patch(client, hook["id"], status="disabled")
    _five_while_disabled(session)
    Delivery.objects.filter(pk__in=list(Delivery.objects.values_list("pk", flat=True)[:2])).update(
        created_at=timezone.now() - timedelta(days=7, minutes=1)
    )
    totals = retention.deliveries_purge()
    assert totals.held == 2
    assert Delivery.objects.filter(status=HELD).count() == 3
