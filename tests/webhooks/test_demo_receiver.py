"""The demo webhook and Ponte's own demo receiver (/demo/): the first demo delivery never leaves the
machine."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from messaging.models import Session
from webhooks.demo import DEMO_SECRET
from webhooks.models import Webhook
from webhooks.signing import hex_signature


@pytest.fixture
def var_dir(settings, tmp_path, db):
    settings.VAR_DIR = tmp_path
    return tmp_path


def test_the_demo_webhook_targets_the_local_receiver(default_plans, var_dir, settings) -> None:
    settings.PONTE_PORT = 18999
    call_command("load_demo", stdout=StringIO())
    webhook = Webhook.objects.get(account__name="demo")
    assert webhook.url == "http://127.0.0.1:18999/demo/webhook" and webhook.secret == DEMO_SECRET


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
    assert "<strong>invalid</strong>" in page and ">valid<" in page


def test_the_receiver_keeps_only_the_latest_deliveries(client, var_dir) -> None:
    from webhooks.demo_receiver import KEPT, received_list

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
