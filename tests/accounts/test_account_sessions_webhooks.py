"""The account area's sessions, webhooks and delivery log: each action through the same services as
the API, and only on the customer's own account."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Account
from accounts.services import account_signup
from messaging.models import Session
from messaging.services import sessions as session_services
from webhooks.models import Delivery, Webhook
from webhooks.registered.services import webhook_create
from webhooks.services import emit


@pytest.fixture
def customer(customer, allow_loopback) -> tuple[Client, Account]:
    """The signed-in customer on the Empresarial plan, with webhooks to 127.0.0.1 allowed."""
    _, account = customer
    account.plan = account.plan.__class__.objects.get(name="Empresarial")
    account.save()
    return customer


def test_create_connect_and_pair_a_session_from_the_account_area(customer) -> None:
    browser, account = customer
    reply = browser.post("/account/sessions/", {"name": "shop"})
    session = Session.objects.get(account=account, name="shop")
    assert reply.status_code == 200 and reply.context["session"] == session
    browser.post(f"/account/sessions/{session.pk}/connect/")
    qr = browser.get(f"/account/sessions/{session.pk}/qr/").json()
    assert qr["status"] == "qr" and qr["code"].startswith("2@") and qr["image"].startswith("data:image/png")
    code = browser.post(f"/account/sessions/{session.pk}/pairing-code/", {"phone": "5511988887777"})
    assert code.status_code == 200 and code.context["pairing"].code in code.content.decode()
    browser.post(f"/account/sessions/{session.pk}/scan/")
    session.refresh_from_db()
    assert session.status == "connected"
    assert browser.get(f"/account/sessions/{session.pk}/qr/").json()["status"] == "connected"
    browser.post(f"/account/sessions/{session.pk}/logout/")
    session.refresh_from_db()
    assert session.status == "disconnected"
    browser.post(f"/account/sessions/{session.pk}/delete/")
    assert not Session.objects.filter(pk=session.pk).exists()


def test_the_plan_session_cap_shows_on_the_form(default_plans) -> None:
    _, account = account_signup(email="free@example.com", password="a long pass phrase 42")
    browser = Client()
    browser.login(username="free@example.com", password="a long pass phrase 42")
    browser.post("/account/sessions/", {"name": "one"})
    refused = browser.post("/account/sessions/", {"name": "two"})
    assert refused.status_code == 400 and "The Free plan allows 1 session and" in refused.content.decode()
    assert account.sessions.count() == 1


def test_pairing_code_form_shows_a_field_error_for_a_bad_phone(customer) -> None:
    browser, account = customer
    session = session_services.session_create(account=account, name="s")
    reply = browser.post(f"/account/sessions/{session.pk}/pairing-code/", {"phone": "+55 11"})
    assert reply.status_code == 400 and "Digits only" in reply.content.decode()


def test_another_accounts_session_is_not_found(customer, make_account) -> None:
    browser, _ = customer
    other = session_services.session_create(account=make_account(name="other"), name="theirs")
    for path in ["", "qr/"]:
        assert browser.get(f"/account/sessions/{other.pk}/{path}").status_code == 404
    assert browser.post(f"/account/sessions/{other.pk}/delete/").status_code == 404
    assert Session.objects.filter(pk=other.pk).exists()


def test_create_edit_and_delete_a_webhook(customer) -> None:
    browser, account = customer
    session = session_services.session_create(account=account, name="s")
    form = {
        "session": str(session.pk),
        "url": "http://127.0.0.1:9/hook",
        "events": ["message", "qr"],
        "retry_count": 3,
    }
    assert browser.post("/account/webhooks/", {**form, "secret": "s3cret"}).status_code == 302
    webhook = Webhook.objects.get(account=account)
    assert webhook.events == ["message", "qr"] and webhook.retry_count == 3 and webhook.secret == "s3cret"
    edit = {"url": "http://127.0.0.1:10/hook", "events": ["connected"], "retry_count": 5, "secret": ""}
    assert browser.post(f"/account/webhooks/{webhook.id}/edit/", edit).status_code == 302
    webhook.refresh_from_db()
    assert webhook.url.endswith(":10/hook") and webhook.events == ["connected"] and webhook.secret == "s3cret"
    assert browser.post(f"/account/webhooks/{webhook.id}/delete/").status_code == 302
    assert not Webhook.objects.exists()


def test_webhook_form_puts_the_ssrf_refusal_on_the_url_field(customer, settings) -> None:
    browser, account = customer
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = []
    session = session_services.session_create(account=account, name="s")
    form = {
        "session": str(session.pk),
        "url": "http://127.0.0.1/hook",
        "events": ["message"],
        "retry_count": 5,
    }
    reply = browser.post("/account/webhooks/", form)
    assert reply.status_code == 400 and reply.context["form"].errors["url"]
    assert not Webhook.objects.exists()


def _dead_letter(account: Account, session: Session) -> Delivery:
    webhook_create(account=account, session_id=session.pk, url="http://127.0.0.1:9/hook", events=["message"])
    emit(session_id=session.pk, name="message", data={"text": "hi"}, chat="5511@s.whatsapp.net")
    delivery = Delivery.objects.get(session=session)
    Delivery.objects.filter(pk=delivery.pk).update(status=Delivery.Status.DEAD, last_error="HTTP 500")
    return delivery


def test_resend_of_the_customers_own_dead_letter(customer) -> None:
    browser, account = customer
    delivery = _dead_letter(account, session_services.session_create(account=account, name="s"))
    page = browser.get("/account/deliveries/?status=dead").content.decode()
    assert delivery.dispatch_id in page and "HTTP 500" in page
    browser.post("/account/deliveries/resend/", {"delivery": [delivery.pk]})
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.PENDING and delivery.resend_requested_by == account.user


def test_another_accounts_dead_letters_are_neither_shown_nor_resent(customer, make_account) -> None:
    browser, _ = customer
    other = make_account(name="other")
    theirs = _dead_letter(other, session_services.session_create(account=other, name="theirs"))
    assert theirs.dispatch_id not in browser.get("/account/deliveries/").content.decode()
    browser.post("/account/deliveries/resend/", {"delivery": [theirs.pk]})
    theirs.refresh_from_db()
    assert theirs.status == Delivery.Status.DEAD


def test_another_accounts_webhook_can_be_neither_edited_nor_deleted(customer, make_account) -> None:
    browser, _ = customer
    other = make_account(name="other")
    session = session_services.session_create(account=other, name="theirs")
    theirs = webhook_create(
        account=other, session_id=session.pk, url="http://127.0.0.1:9/h", events=["message"]
    )
    assert browser.get(f"/account/webhooks/{theirs.id}/edit/").status_code == 404
    assert browser.post(f"/account/webhooks/{theirs.id}/delete/").status_code == 404
    assert theirs.id not in browser.get("/account/webhooks/").content.decode()
    assert Webhook.objects.filter(pk=theirs.id).exists()


def test_the_new_sessions_instance_key_is_shown_once_in_the_reply_to_the_form(customer) -> None:
    browser, account = customer
    reply = browser.post("/account/sessions/", {"name": "shop"})
    session = Session.objects.get(account=account, name="shop")
    shown = reply.context["new_instance_key"]
    assert reply.status_code == 200 and shown in reply.content.decode()
    assert "no-store" in reply["Cache-Control"]
    assert shown.startswith(session.instance_key_prefix)
    reloaded = browser.get(f"/account/sessions/{session.pk}/")
    assert shown not in reloaded.content.decode() and session.instance_key_prefix in reloaded.content.decode()
    assert shown not in str(dict(browser.session))
    assert browser.get(f"/instances/{shown}/instance").status_code == 200


def test_regenerating_the_instance_key_shows_the_new_one_once_and_retires_the_old(customer) -> None:
    browser, account = customer
    session = session_services.session_create(account=account, name="s")
    old = session.instance_key
    reply = browser.post(f"/account/sessions/{session.pk}/instance-key/")
    new = reply.context["new_instance_key"]
    assert reply.status_code == 200 and new != old and new in reply.content.decode()
    assert "no-store" in reply["Cache-Control"]
    assert browser.get(f"/account/sessions/{session.pk}/instance-key/").status_code == 405
    assert browser.get(f"/instances/{old}/instance").status_code == 404
    assert browser.get(f"/instances/{new}/instance").status_code == 200


def test_another_accounts_instance_key_cannot_be_regenerated(customer, make_account) -> None:
    browser, _ = customer
    other = session_services.session_create(account=make_account(name="other"), name="theirs")
    assert browser.post(f"/account/sessions/{other.pk}/instance-key/").status_code == 404
    assert Session.objects.get(pk=other.pk).instance_key_digest == other.instance_key_digest
