"""Operational events: `webhook.disabled` (with the reason) and `webhook.dead_letter` (with the delivery's
id) reach the account's other webhooks that subscribe to them, never the webhook they are about, never
another account; they are in the event catalogue with their schemas."""

from __future__ import annotations

import json

import jsonschema
import pytest

from messaging.models import Session
from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Delivery
from webhooks.outbox.disable import webhook_disable
from webhooks.services import emit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings, allow_loopback):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0


def _bodies(receiver) -> list[dict]:
    return [json.loads(r.body) for r in receiver.received]


def _schema(client, name: str) -> dict:
    types = client.get("/gateway/event-types").json()
    return next(entry["schema"] for entry in types if entry["name"] == name)


def test_a_dead_letter_is_told_to_the_accounts_other_webhooks_that_subscribe(
    keyed_client, admin_key, session, make_receiver
):
    client = keyed_client(admin_key)
    failing, ops, deaf = make_receiver(default=500), make_receiver(), make_receiver()
    hook = register(client, session, failing.url, retryCount=1, events=["message", "webhook.dead_letter"])
    register(client, session, ops.url, events=["webhook.dead_letter", "webhook.disabled"])
    register(client, session, deaf.url, events=["message"])  # not subscribed: told nothing
    emit(session_id=session.id, name="message", data={"id": "M1"})
    send_due()

    dead = Delivery.objects.get(webhook_id=hook["id"], event__name="message")
    assert dead.status == Delivery.Status.DEAD
    (told,) = _bodies(ops)
    assert told["event"] == "webhook.dead_letter"
    assert told["data"]["deliveryId"] == dead.pk and told["data"]["webhookId"] == hook["id"]
    assert told["data"]["eventId"] == dead.dispatch_id and told["data"]["event"] == "message"
    jsonschema.validate(told, _schema(client, "webhook.dead_letter"))
    # Not to the webhook it is about (it subscribes too), nor to one that does not subscribe.
    assert [b["event"] for b in _bodies(failing)] == ["message"]
    assert [b["event"] for b in _bodies(deaf)] == ["message"]
    # In the receiving webhook's delivery log like any delivery.
    row = client.get(f"/gateway/deliveries/{Delivery.objects.get(event__name='webhook.dead_letter').pk}")
    assert row.status_code == 200 and row.json()["event"] == "webhook.dead_letter"


def test_a_dead_letter_of_an_operational_event_tells_no_one(keyed_client, admin_key, session, make_receiver):
    """Two failing webhooks subscribed to each other's dead letters must not keep telling each other."""
    client = keyed_client(admin_key)
    a, b = make_receiver(default=500), make_receiver(default=500)
    register(client, session, a.url, retryCount=1, events=["message", "webhook.dead_letter"])
    register(client, session, b.url, retryCount=1, events=["webhook.dead_letter"])
    emit(session_id=session.id, name="message", data={"id": "M1"})
    send_due()
    assert [x["event"] for x in _bodies(a)] == ["message"]
    assert [x["event"] for x in _bodies(b)] == ["webhook.dead_letter"]
    assert Delivery.objects.filter(event__name="webhook.dead_letter").count() == 1


def test_a_disabled_webhook_is_told_with_its_reason_to_the_others_only(
    keyed_client, admin_key, session, make_receiver, make_account, make_key
):
    client = keyed_client(admin_key)
    ops = make_receiver()
    hook = register(client, session, "https://93.184.215.14/hook", events=["message", "webhook.disabled"])
    register(client, session, ops.url, events=["webhook.disabled"], filter={"data.reason": {"$exists": True}})
    other_account = make_account()
    foreign = Session.objects.create(account=other_account, name="x", status=Session.Status.CONNECTED)
    outsider = make_receiver()
    register(
        keyed_client(make_key(for_account=other_account)), foreign, outsider.url, events=["webhook.disabled"]
    )
    client = keyed_client(admin_key)  # one test client: back to this account's key

    assert webhook_disable(webhook_id=hook["id"], reason="Every delivery attempt failed since then.")
    send_due()
    (told,) = _bodies(ops)
    assert told["event"] == "webhook.disabled" and told["session_id"] == str(session.id)
    assert told["data"]["webhookId"] == hook["id"]
    assert told["data"]["reason"] == "Every delivery attempt failed since then."
    jsonschema.validate(told, _schema(client, "webhook.disabled"))
    assert outsider.received == []  # another account's webhooks never hear of it
    # Disabled by its owner: the same event, with that reason.
    patch(client, hook["id"], status="active")
    patch(client, hook["id"], status="disabled")
    send_due()
    assert [b["data"]["reason"] for b in _bodies(ops)][-1] == "Disabled by the customer."


def test_operational_events_are_in_the_catalogue_and_subscribable_under_their_names(
    keyed_client, viewer_key, admin_key, session
):
    names = [entry["name"] for entry in keyed_client(viewer_key).get("/gateway/event-types").json()]
    assert {"webhook.disabled", "webhook.dead_letter"} <= set(names)
    hook = register(keyed_client(admin_key), session, "https://93.184.215.14/h", events=["WEBHOOK.DISABLED"])
    assert hook["events"] == ["webhook.disabled"]
