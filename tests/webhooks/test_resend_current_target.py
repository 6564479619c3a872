"""A resend (admin, account area) and a replay go to the webhook's CURRENT url with its current secret
and headers, keeping the delivery's original webhook-id."""

from __future__ import annotations

import pytest
import standardwebhooks
from django.test import Client

from accounts.services import account_signup
from messaging.models import Session
from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Delivery
from webhooks.outbox.deliveries import deliveries_resend
from webhooks.services import emit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_retries(settings, allow_loopback):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0


def _dead_letter_then_fixed(client, session, make_receiver):
    broken, fixed = make_receiver(default=500), make_receiver()
    hook = register(client, session, broken.url, secret="old-secret", retryCount=1)
    emit(session_id=session.id, name="message", data={"id": "M1", "text": "hi"})
    send_due()
    delivery = Delivery.objects.get(webhook_id=hook["id"])
    assert delivery.status == Delivery.Status.DEAD and len(broken.received) == 1
    reply = patch(client, hook["id"], url=fixed.url, secret="new-secret", headers={"X-Tenant": "t1"})
    assert reply.status_code == 200, reply.content
    return delivery, broken, fixed


def _assert_sent_to_the_current_target(delivery, broken, fixed):
    send_due()
    assert len(broken.received) == 1, "the resend went to the URL stored on the delivery"
    (request,) = fixed.received
    assert request.headers["webhook-id"] == delivery.dispatch_id
    assert request.headers["x-tenant"] == "t1"
    standardwebhooks.Webhook(b"new-secret").verify(request.body, request.headers)
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.DELIVERED and delivery.target_url == fixed.url


def test_an_admin_resend_after_fixing_the_url_posts_to_the_new_url(
    keyed_client, admin_key, session, make_receiver
):
    delivery, broken, fixed = _dead_letter_then_fixed(keyed_client(admin_key), session, make_receiver)
    queued, skipped = deliveries_resend(deliveries=Delivery.objects.filter(pk=delivery.pk), requested_by=None)
    assert (queued, skipped) == (1, 0)
    _assert_sent_to_the_current_target(delivery, broken, fixed)


def test_an_account_area_resend_after_fixing_the_url_posts_to_the_new_url(
    default_plans, make_key, keyed_client, make_receiver
):
    _user, account = account_signup(email="ana@example.com", password="a long pass phrase 42")
    account.plan = account.plan.__class__.objects.get(name="Empresarial")
    account.save()
    session = Session.objects.create(account=account, name="s", status=Session.Status.CONNECTED)
    client = keyed_client(make_key(for_account=account))
    delivery, broken, fixed = _dead_letter_then_fixed(client, session, make_receiver)
    browser = Client()
    browser.login(username="ana@example.com", password="a long pass phrase 42")
    browser.post("/account/deliveries/resend/", {"delivery": [delivery.pk]})
    _assert_sent_to_the_current_target(delivery, broken, fixed)
