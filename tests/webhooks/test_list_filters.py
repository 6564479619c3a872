"""The webhook list filters (webhooks.registered.filters FilterSets) through their pages: registered
webhooks by session on the gateway, the account area's delivery log by status; a value that can match
nothing lists nothing (a session id) or is ignored (a status)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.services import account_signup
from messaging.services import sessions as session_services
from webhooks.models import Delivery
from webhooks.registered.services import webhook_create
from webhooks.services import emit

pytestmark = pytest.mark.django_db
HOOK = "http://127.0.0.1:9/hook"


@pytest.fixture
def admin_client(keyed_client, admin_key):
    return keyed_client(admin_key)


@pytest.fixture
def two_webhooks(admin_client, settings) -> tuple[str, str]:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    sessions = tuple(
        admin_client.post("/api/sessions", {"name": name}, format="json").json()["id"]
        for name in ("one", "two")
    )
    for session_id in sessions:
        body = {"sessionId": session_id, "url": HOOK, "events": ["message"]}
        assert admin_client.post("/gateway/webhooks", body, format="json").status_code == 200
    return sessions


def sessions_of(reply) -> list[str]:
    assert reply.status_code == 200
    return [webhook["sessionId"] for webhook in reply.json()["data"]]


def test_the_session_filter_lists_only_that_sessions_webhooks(admin_client, two_webhooks) -> None:
    one, two = two_webhooks
    assert sessions_of(admin_client.get(f"/gateway/webhooks?sessionId={two}")) == [two]
    assert sessions_of(admin_client.get("/gateway/webhooks")) == [one, two]
    assert sessions_of(admin_client.get("/gateway/webhooks?sessionId=")) == [one, two]


@pytest.mark.parametrize("value", ["nope", "%20{one}", "12345"])
def test_a_session_id_that_is_no_session_id_lists_no_webhook(admin_client, two_webhooks, value) -> None:
    one, _ = two_webhooks
    assert sessions_of(admin_client.get(f"/gateway/webhooks?sessionId={value.format(one=one)}")) == []


@pytest.fixture
def delivery_log(default_plans, settings) -> tuple[Client, Delivery]:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    _, account = account_signup(email="ana@example.com", password="a long pass phrase 42")
    browser = Client()
    browser.login(username="ana@example.com", password="a long pass phrase 42")
    session = session_services.session_create(account=account, name="s")
    webhook_create(account=account, session_id=session.pk, url=HOOK, events=["message"])
    emit(session_id=session.pk, name="message", data={"text": "hi"}, chat="5511@s.whatsapp.net")
    delivery = Delivery.objects.get(session=session)
    Delivery.objects.filter(pk=delivery.pk).update(status=Delivery.Status.DEAD)
    return browser, delivery


def test_the_delivery_log_filters_by_a_known_status(delivery_log) -> None:
    browser, delivery = delivery_log
    assert delivery.dispatch_id in browser.get("/account/deliveries/?status=dead").content.decode()
    assert delivery.dispatch_id not in browser.get("/account/deliveries/?status=pending").content.decode()


@pytest.mark.parametrize("value", ["bogus", "DEAD", ""])
def test_an_unknown_delivery_status_is_ignored_not_an_error(delivery_log, value) -> None:
    browser, delivery = delivery_log
    page = browser.get(f"/account/deliveries/?status={value}")
    assert page.status_code == 200 and delivery.dispatch_id in page.content.decode()
