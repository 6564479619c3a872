"""Bots in the account area: created on the customer's own session through the same checks as the API,
turned off and on, their conversations paused and resumed, their last error shown; other accounts' bots
are not found."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.services import account_signup
from integrations.bots.models import Bot, Conversation
from messaging.services import sessions as session_services
from tests.accounts.conftest import PASSWORD

HOOK = "http://127.0.0.1:9/webhook/atendimento"  # a closed local port: nothing is called here


@pytest.fixture
def session(customer, allow_loopback):
    _, account = customer
    return session_services.session_create(account=account, name="loja")


def _form(session, **changes) -> dict:
    return {
        "session": str(session.pk),
        "name": "atendente",
        "kind": "http",
        "url": HOOK,
        "secret": "um-segredo-de-assinatura-longo",
        "trigger": "keyword",
        "operator": "equals",
        "value": "menu",
        **changes,
    }


def test_a_customer_creates_a_bot_turns_it_off_and_deletes_it(customer, session) -> None:
    browser, _ = customer
    created = browser.post("/account/bots/", _form(session))
    bot = Bot.objects.get(session=session)
    assert created.status_code == 302 and created["Location"] == f"/account/bots/{bot.pk}/"
    assert bot.kind == "http" and bot.settings["url"] == HOOK and bot.trigger_value == "menu"
    assert "um-segredo" not in browser.get(f"/account/bots/{bot.pk}/").content.decode()
    listed = browser.get("/account/bots/").content.decode()
    assert "atendente" in listed and "loja" in listed
    browser.post(f"/account/bots/{bot.pk}/toggle/")
    bot.refresh_from_db()
    assert bot.enabled is False
    browser.post(f"/account/bots/{bot.pk}/delete/")
    assert not Bot.objects.exists()


def test_the_forms_refusals_are_shown_and_nothing_is_written(customer, session) -> None:
    browser, _ = customer
    refused = browser.post("/account/bots/", _form(session, secret="curto"))
    assert refused.status_code == 400 and "16+ characters" in refused.content.decode()
    refused = browser.post("/account/bots/", _form(session, kind="openai", secret=""))
    assert refused.status_code == 400 and "model" in refused.content.decode()
    assert not Bot.objects.exists()


def test_a_bot_turned_off_by_ponte_says_why_and_its_chats_can_be_paused(customer, session) -> None:
    browser, _ = customer
    browser.post("/account/bots/", _form(session))
    bot = Bot.objects.get()
    Bot.objects.filter(pk=bot.pk).update(
        enabled=False,
        disabled_reason="disabled after 10 failed attempts in a row; last: HTTP 500",
        last_error="HTTP 500",
    )
    Conversation.objects.create(bot=bot, chat="5511988887777@s.whatsapp.net")
    page = browser.get(f"/account/bots/{bot.pk}/").content.decode()
    assert "disabled after 10 failed attempts" in page and "5511988887777@s.whatsapp.net" in page
    browser.post(f"/account/bots/{bot.pk}/chat/", {"chat": "5511988887777", "action": "pause"})
    assert Conversation.objects.get().paused_until is not None
    browser.post(f"/account/bots/{bot.pk}/chat/", {"chat": "5511988887777", "action": "resume"})
    assert Conversation.objects.get().paused_until is None
    browser.post(f"/account/bots/{bot.pk}/toggle/")
    bot.refresh_from_db()
    assert bot.enabled is True and bot.disabled_reason == ""


def test_another_accounts_bot_is_not_found(customer, session, default_plans) -> None:
    browser, _ = customer
    browser.post("/account/bots/", _form(session))
    bot = Bot.objects.get()
    account_signup(email="bia@example.com", password=PASSWORD)
    other = Client()
    other.login(username="bia@example.com", password=PASSWORD)
    assert other.get(f"/account/bots/{bot.pk}/").status_code == 404
    assert other.post(f"/account/bots/{bot.pk}/delete/").status_code == 404
    assert Bot.objects.exists()
