"""The account area's webhooks page says the plan's cap before its form and, once the cap is reached, shows
why instead of a form that could only fail; an empty resend says so; plurals come from gettext (issue 45)."""

from __future__ import annotations

from django.contrib.messages import get_messages

from messaging.services import sessions as session_services
from webhooks.models import Delivery
from webhooks.registered.services import webhook_create

from .test_account_sessions_webhooks import _dead_letter


def test_the_cap_is_said_before_the_form(customer, allow_loopback) -> None:
    browser, account = customer
    session_services.session_create(account=account, name="s")
    html = browser.get("/account/webhooks/").content.decode()
    cap = html.index('id="webhook-cap"')
    assert cap < html.index('id="create-webhook"')
    assert "The Free plan allows 1 webhook. This account has 0." in " ".join(html[cap:].split())


def test_a_full_plan_shows_the_reason_instead_of_the_form(customer, allow_loopback) -> None:
    browser, account = customer
    session = session_services.session_create(account=account, name="s")
    webhook_create(account=account, session_id=session.pk, url="http://127.0.0.1:9/hook", events=["message"])
    html = browser.get("/account/webhooks/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert 'id="create-webhook"' not in html and 'id="webhook-cap-reached"' in html
    assert "Esta conta tem 1." in html and "(s)" not in html


def test_the_api_refusal_at_the_cap_has_no_plural_in_brackets(customer, allow_loopback) -> None:
    _, account = customer
    session = session_services.session_create(account=account, name="s")
    webhook_create(account=account, session_id=session.pk, url="http://127.0.0.1:9/a", events=["message"])
    from webhooks.errors import WebhookLimitReached

    try:
        webhook_create(account=account, session_id=session.pk, url="http://127.0.0.1:9/b", events=["message"])
    except WebhookLimitReached as refused:
        assert refused.message == "The Free plan allows 1 webhook."
    else:
        raise AssertionError("a second webhook passed the Free plan's cap")


def test_a_resend_with_nothing_ticked_says_so(customer, allow_loopback) -> None:
    browser, _ = customer
    reply = browser.post("/account/deliveries/resend/", {}, HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert reply.status_code == 302
    (message,) = [str(message) for message in get_messages(reply.wsgi_request)]
    assert message.startswith("Nada foi reenviado")


def test_attempt_outcomes_are_translated_on_the_delivery_log(customer, allow_loopback) -> None:
    browser, account = customer
    delivery = _dead_letter(account, session_services.session_create(account=account, name="s"))
    delivery.attempts.create(number=1, scheduled_at=delivery.created_at, status_code=500, outcome="dead")
    html = browser.get("/account/deliveries/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "entrega morta" in html and " · dead" not in html
    assert Delivery.objects.get(pk=delivery.pk).status == Delivery.Status.DEAD
