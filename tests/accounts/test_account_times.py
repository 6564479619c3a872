"""Every time a customer reads in the account area and on /demo/ is written one way: São Paulo time
(TIME_ZONE) in the page language's short format, with its UTC offset; never a bare local time nor UTC."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from django.test import Client
from django.utils import translation

from accounts.models import Account
from accounts.services import api_key_create
from core.timefmt import local_time_text
from messaging.services import sessions as session_services
from webhooks.models import Delivery, DeliveryAttempt
from webhooks.registered.services import webhook_create
from webhooks.services import emit

# 17:03:05 UTC is 14:03:05 in São Paulo (UTC-3, no daylight saving time since 2019).
MOMENT = datetime(2026, 11, 26, 17, 3, 5, tzinfo=UTC)
PT = {"HTTP_ACCEPT_LANGUAGE": "pt-BR"}
OTHER_TIMES = re.compile(r"\d{2}:\d{2}:\d{2}(?! -03:00)|\+00:00")


@pytest.fixture
def customer(customer, allow_loopback) -> tuple[Client, Account]:
    """The signed-in customer, with webhooks to 127.0.0.1 allowed."""
    return customer


def test_a_moment_reads_as_sao_paulo_time_with_its_offset_in_each_language() -> None:
    assert local_time_text(MOMENT) == "2026-11-26 14:03:05 -03:00"
    with translation.override("pt-br"):
        assert local_time_text(MOMENT) == "26/11/2026 14:03:05 -03:00"


def test_the_delivery_log_writes_every_time_the_same_way(customer) -> None:
    browser, account = customer
    session = session_services.session_create(account=account, name="s")
    webhook_create(account=account, session_id=session.pk, url="http://127.0.0.1:9/hook", events=["message"])
    emit(session_id=session.pk, name="message", data={"text": "hi"})
    delivery = Delivery.objects.get(session=session)
    Delivery.objects.filter(pk=delivery.pk).update(created_at=MOMENT)
    DeliveryAttempt.objects.create(
        delivery=delivery, number=1, scheduled_at=MOMENT, started_at=MOMENT, status_code=500, outcome="retry"
    )
    for headers, shown in [({}, "2026-11-26 14:03:05 -03:00"), (PT, "26/11/2026 14:03:05 -03:00")]:
        table = _table(browser.get("/account/deliveries/", **headers).content.decode(), "deliveries")
        assert table.count(shown) == 2, table
        assert not OTHER_TIMES.search(table), table


def test_the_keys_page_writes_last_use_and_expiry_with_the_zone(customer) -> None:
    browser, account = customer
    key, _ = api_key_create(account=account, role="viewer", expires_at=MOMENT)
    key.last_used_at = MOMENT
    key.save(update_fields=["last_used_at"])
    table = _table(browser.get("/account/keys/").content.decode(), "keys")
    assert table.count("2026-11-26 14:03:05 -03:00") == 2 and not OTHER_TIMES.search(table)


def test_the_qr_poll_gives_the_expiry_as_the_pages_write_times(customer) -> None:
    browser, account = customer
    session = session_services.session_create(account=account, name="s")
    browser.post(f"/account/sessions/{session.pk}/connect/")
    qr = browser.get(f"/account/sessions/{session.pk}/qr/").json()
    expires = datetime.fromisoformat(qr["expiresAt"])
    assert qr["expiresAtText"] == local_time_text(expires) and qr["expiresAtText"].endswith(" -03:00")


def test_the_demo_page_writes_arrival_times_in_sao_paulo_with_the_zone(
    client, settings, tmp_path, db
) -> None:
    settings.VAR_DIR = tmp_path
    record = {"at": MOMENT.isoformat(), "webhook_id": "x", "event": "message", "payload": {}}
    (tmp_path / "demo-webhook.jsonl").write_text(json.dumps(record) + "\n")
    table = _table(client.get("/demo/").content.decode(), "received")
    assert "<td>2026-11-26 14:03:05 -03:00</td>" in table and not OTHER_TIMES.search(table)


def _table(page: str, table_id: str) -> str:
    start = page.index(f'<table id="{table_id}"')
    return page[start : page.index("</table>", start)]
