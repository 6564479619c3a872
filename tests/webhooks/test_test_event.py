"""POST /gateway/webhooks/{id}/test: one `webhook.test` delivery, signed, retried and logged like any."""

from __future__ import annotations

import json

import pytest
import standardwebhooks

from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings, allow_loopback):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0


def test_a_test_event_is_delivered_signed_to_that_webhook_only(
    keyed_client, operator_key, session, make_receiver
):
    client = keyed_client(operator_key)
    target, other = make_receiver(), make_receiver()
    hook = register(client, session, target.url, secret="s3cret", events=["qr"])
    register(client, session, other.url, events=["message"])
    reply = client.post(f"/gateway/webhooks/{hook['id']}/test")
    assert reply.status_code == 202, reply.content
    assert reply.json()["event"] == "webhook.test"
    send_due()
    (request,) = target.received
    assert not other.received
    body = standardwebhooks.Webhook(b"s3cret").verify(request.body, request.headers)
    assert body["event"] == "webhook.test" and body["session_id"] == str(session.id)
    assert body["data"]["webhookId"] == hook["id"]
    assert request.headers["webhook-id"] == reply.json()["webhookId"]
    delivery = Delivery.objects.get(dispatch_id=reply.json()["webhookId"])  # in the delivery log
    assert (delivery.status, delivery.event.name) == (Delivery.Status.DELIVERED, "webhook.test")


def test_a_test_event_is_retried_on_the_webhook_s_schedule(keyed_client, admin_key, session, receiver):
    receiver.statuses = [500, 503]
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, retryCount=3)
    dispatch = client.post(f"/gateway/webhooks/{hook['id']}/test").json()["webhookId"]
    send_due()
    delivery = Delivery.objects.get(dispatch_id=dispatch)
    assert delivery.status == Delivery.Status.DELIVERED
    assert [a.status_code for a in delivery.attempts.order_by("number")] == [500, 503, 200]
    assert {r.headers["webhook-id"] for r in receiver.received} == {dispatch}
    assert json.loads(receiver.received[0].body) == json.loads(receiver.received[-1].body)


def test_viewers_cannot_send_test_events(keyed_client, admin_key, viewer_key, session, receiver):
    hook = register(keyed_client(admin_key), session, receiver.url)
    assert keyed_client(viewer_key).post(f"/gateway/webhooks/{hook['id']}/test").status_code == 403
    assert not Delivery.objects.exists()


def test_a_disabled_webhook_gets_no_test_event(keyed_client, admin_key, session, receiver):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url)
    assert patch(client, hook["id"], status="disabled").json()["status"] == "disabled"
    reply = client.post(f"/gateway/webhooks/{hook['id']}/test")
    assert (reply.status_code, reply.json()) == (409, {"error": "Webhook disabled"})


def test_an_unknown_webhook_is_not_found(keyed_client, admin_key):
    reply = keyed_client(admin_key).post("/gateway/webhooks/wh_nope/test")
    assert (reply.status_code, reply.json()) == (404, {"error": "Webhook not found"})
