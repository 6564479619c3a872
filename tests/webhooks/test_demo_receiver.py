"""The demo webhook and Ponte's own demo receiver (/demo/): the first demo delivery never leaves the
machine."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from messaging.models import Session
from messaging.services.sessions import session_create
from webhooks.demo import DEMO_SECRET
from webhooks.demo.receiver import received_list
from webhooks.models import Delivery, Webhook
from webhooks.registered.services import webhook_create
from webhooks.services import emit
from webhooks.signing import delivery_headers, hex_signature


@pytest.fixture
def var_dir(settings, tmp_path, db):
    settings.VAR_DIR = tmp_path
    return tmp_path


def test_the_demo_webhook_targets_the_local_receiver(default_plans, var_dir, settings) -> None:
    settings.PONTE_PORT = 18999
    call_command("load_demo", stdout=StringIO())
    webhook = Webhook.objects.get(account__name="demo")
    assert webhook.url == "http://127.0.0.1:18999/demo/webhook" and webhook.secret == DEMO_SECRET


# Slow (tests/tiers.py): loads the whole demo, twice.
@pytest.mark.slow
def test_an_old_public_demo_target_moves_to_the_local_receiver(default_plans, var_dir) -> None:
    call_command("load_demo", stdout=StringIO())
    Webhook.objects.filter(account__name="demo").update(url="https://example.com/ponte-webhook")
    call_command("load_demo", stdout=StringIO())
    assert Webhook.objects.get(account__name="demo").url.endswith("/demo/webhook")
    assert Session.objects.filter(account__name="demo").count() == 2


def test_the_receiver_shows_what_arrived_and_checks_the_signature(client, var_dir) -> None:
    body = json.dumps({"event": "message", "session_id": "s", "data": {"text": "olá"}}).encode()
    good = {
        "HTTP_X_WEBHOOK_SIGNATURE": hex_signature(secret=DEMO_SECRET, body=body),
        "HTTP_WEBHOOK_ID": "msg_1",
    }
    assert client.post("/demo/webhook", body, content_type="application/json", **good).status_code == 200
    bad = {"HTTP_X_WEBHOOK_SIGNATURE": "00", "HTTP_WEBHOOK_ID": "msg_2"}
    client.post("/demo/webhook", body, content_type="application/json", **bad)
    page = client.get("/demo/").content.decode()
    assert "msg_1" in page and "msg_2" in page and "olá" in page
    assert page.index("msg_2") < page.index("msg_1")  # newest first
    # Neither id is a delivery of this Ponte: the demo secret's signature is valid, the other unknown.
    assert ">valid<" in page and "the demo secret" in page
    assert "<strong>invalid</strong>" not in page and "not checked" in page


def test_the_receiver_keeps_only_the_latest_deliveries(client, var_dir) -> None:
    from webhooks.demo.receiver import KEPT

    for n in range(KEPT + 5):
        client.post(
            "/demo/webhook", json.dumps({"event": "message", "n": n}), content_type="application/json"
        )
    kept = received_list()
    assert len(kept) == KEPT and kept[0]["payload"]["n"] == KEPT + 4


def test_the_receiver_is_off_unless_enabled(client, var_dir, settings) -> None:
    settings.PONTE_DEMO_RECEIVER = False
    assert client.get("/demo/").status_code == 404
    assert client.post("/demo/webhook", b"{}", content_type="application/json").status_code == 404


@pytest.fixture
def customer_delivery(make_account, settings, var_dir) -> Delivery:
    """A delivery of a customer's own webhook (its own secret), pointed at the demo receiver."""
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    account = make_account(name="customer")
    session = session_create(account=account, name="shop")
    webhook_create(
        account=account,
        session_id=session.pk,
        url="http://127.0.0.1:9/demo/webhook",
        events=["message"],
        secret="the customer's own secret",
    )
    emit(session_id=session.pk, name="message", data={"text": "oi"})
    return Delivery.objects.get(session=session)


def post_as_ponte(client, delivery: Delivery, secret: str):
    body = json.dumps(delivery.payload).encode()
    headers = delivery_headers(secret=secret, msg_id=delivery.dispatch_id, body=body, sent_at=timezone.now())
    meta = {"HTTP_" + name.upper().replace("-", "_"): value for name, value in headers.items()}
    meta.pop("HTTP_CONTENT_TYPE")
    return client.post("/demo/webhook", body, content_type="application/json", **meta)


def test_a_customers_delivery_is_checked_with_its_own_webhooks_secret(client, customer_delivery) -> None:
    post_as_ponte(client, customer_delivery, "the customer's own secret")
    [record] = received_list()
    assert (
        record["signature"] == "valid" and record["checked_with"] == f"webhook {customer_delivery.webhook_id}"
    )
    page = client.get("/demo/").content.decode()
    assert "<strong>invalid</strong>" not in page and f"webhook {customer_delivery.webhook_id}" in page


def test_a_delivery_signed_with_another_secret_than_its_webhooks_is_invalid(
    client, customer_delivery
) -> None:
    post_as_ponte(client, customer_delivery, DEMO_SECRET)
    assert received_list()[0]["signature"] == "invalid"
    assert "<strong>invalid</strong>" in client.get("/demo/").content.decode()


def test_a_post_ponte_did_not_send_is_not_checked_rather_than_invalid(client, var_dir) -> None:
    body = b'{"event": "message"}'
    meta = {
        "HTTP_X_WEBHOOK_SIGNATURE": hex_signature(secret="elsewhere", body=body),
        "HTTP_WEBHOOK_ID": "x_1",
    }
    client.post("/demo/webhook", body, content_type="application/json", **meta)
    assert received_list()[0]["signature"] == "not checked"
    page = client.get("/demo/").content.decode()
    assert "<strong>invalid</strong>" not in page and "not checked" in page and DEMO_SECRET in page
