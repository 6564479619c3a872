"""The pages people read speak English and Brazilian Portuguese (core/locale.py): the landing page,
the account area, its e-mails and its refusals follow the header's switch, else Accept-Language, else
English; dates and numbers take the language's format."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.test import Client

from accounts.models import Subscription
from accounts.services import api_key_create, subscription_set
from messaging.models import Session

PT = {"HTTP_ACCEPT_LANGUAGE": "pt-BR,pt;q=0.9,en;q=0.5"}
PASSWORD = "a long pass phrase 42"


def test_the_landing_page_is_in_english_by_default_and_in_portuguese_for_pt_br(client, db) -> None:
    english = client.get("/")
    assert english["Content-Language"] == "en" and '<html lang="en">' in english.content.decode()
    assert "Start here" in english.content.decode()
    portuguese = client.get("/", **PT)
    page = portuguese.content.decode()
    assert portuguese["Content-Language"] == "pt-br" and '<html lang="pt-BR">' in page
    assert "Comece por aqui" in page and "renda fixa brasileira" in page and "Start here" not in page
    assert "Accept-Language" in portuguese["Vary"]


@pytest.mark.parametrize(
    ("path", "english", "portuguese"),
    [
        ("/account/login/", "Forgot your password?", "Esqueceu a senha?"),
        ("/account/signup/", "Create your account", "Crie sua conta"),
        ("/account/password-reset/", "Send the reset link", "Enviar o link de redefinição"),
        ("/account/password-reset/sent/", "Check your email", "Confira seu e-mail"),
        ("/account/reset/MQ/wrong-token/", "This reset link is wrong", "inválido ou já foi usado"),
    ],
)
def test_the_sign_in_sign_up_and_reset_pages_follow_accept_language(
    client, default_plans, path, english, portuguese
) -> None:
    assert english in client.get(path, follow=True).content.decode()
    page = Client().get(path, follow=True, **PT).content.decode()
    assert portuguese in page and english not in page


@pytest.mark.parametrize(
    ("path", "english", "portuguese"),
    [
        ("/account/", "Usage today", "Uso hoje"),
        ("/account/keys/", "Issue the key", "Emitir a chave"),
        ("/account/sessions/", "Create a session", "Criar uma sessão"),
        ("/account/webhooks/", "Register a webhook", "Cadastrar um webhook"),
        ("/account/deliveries/", "Resend the ticked dead letters", "Reenviar as entregas mortas marcadas"),
    ],
)
def test_the_account_pages_are_in_portuguese_for_pt_br_and_english_by_default(
    customer, path, english, portuguese
) -> None:
    browser, _ = customer
    assert english in browser.get(path).content.decode()
    page = browser.get(path, **PT).content.decode()
    assert portuguese in page and english not in page
    assert "Sair" in page and "Chaves de API" in page  # the header


def test_django_form_errors_are_in_portuguese_too(client, default_plans) -> None:
    reply = client.post(
        "/account/signup/", {"email": "not-an-email", "password": "1", "confirmation": "2"}, **PT
    )
    page = reply.content.decode()
    assert reply.status_code == 400
    assert "Insira um endereço de email válido." in page and "As duas senhas não são iguais." in page


def test_the_switch_posts_to_setlang_and_the_next_page_is_in_the_chosen_language(customer) -> None:
    browser, _ = customer
    page = browser.get("/account/keys/").content.decode()
    switch = re.search(r'<form class="language" method="post" action="([^"]+)"', page)
    assert switch and switch.group(1) == "/i18n/setlang/"
    assert '<input type="hidden" name="next" value="/account/keys/">' in page
    reply = browser.post("/i18n/setlang/", {"language": "pt-br", "next": "/account/keys/"})
    assert reply.status_code == 302 and reply["Location"] == "/account/keys/"
    assert "Emitir a chave" in browser.get("/account/keys/").content.decode()
    # The choice outranks the browser's Accept-Language, and can be undone.
    assert "Uso hoje" in browser.get("/account/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    browser.post("/i18n/setlang/", {"language": "en", "next": "/account/"})
    assert "Usage today" in browser.get("/account/", **PT).content.decode()


def test_the_switch_does_not_follow_a_next_url_to_another_site(customer) -> None:
    browser, _ = customer
    reply = browser.post("/i18n/setlang/", {"language": "pt-br", "next": "https://evil.example/"})
    assert reply.status_code == 302 and "evil.example" not in reply["Location"]


def test_a_password_reset_asked_in_portuguese_is_mailed_in_portuguese(client, customer, mailoutbox) -> None:
    assert client.post("/account/password-reset/", {"email": "ana@example.com"}, **PT).status_code == 302
    mail = mailoutbox[0]
    assert mail.subject == "Redefina sua senha do Ponte"
    assert "Alguém pediu para redefinir a senha da conta ana@example.com no Ponte." in mail.body
    assert "Se não foi você, ignore este e-mail" in mail.body
    assert re.search(r"http://testserver/account/reset/\S+/\S+/", mail.body)
    Client().post("/account/password-reset/", {"email": "ana@example.com"})
    assert mailoutbox[1].subject == "Reset your Ponte password"


def test_the_confirmation_mail_of_a_portuguese_sign_up_is_in_portuguese(
    client, default_plans, settings, mailoutbox
) -> None:
    settings.PONTE_ACCOUNT_EMAIL_VERIFICATION = True
    form = {"email": "bia@example.com", "password": "correct horse 77", "confirmation": "correct horse 77"}
    page = client.post("/account/signup/", form, **PT).content.decode()
    assert "Enviamos um link para <strong>bia@example.com</strong>" in page
    assert mailoutbox[0].subject == "Confirme sua conta no Ponte"
    assert mailoutbox[0].body.startswith("Acesse este link para confirmar seu e-mail e entrar:")


def test_an_account_page_shows_brazilian_dates_and_numbers(customer, settings) -> None:
    browser, account = customer
    account.plan.messages_per_day = 12500
    account.plan.save()
    ends = datetime(2027, 3, 10, 12, 0, tzinfo=ZoneInfo(settings.TIME_ZONE))
    subscription_set(
        account=account,
        product=Subscription.Product.BONDS,
        status=Subscription.Status.ACTIVE,
        current_period_end=ends,
    )
    key, _ = api_key_create(account=account, role="viewer", expires_at=ends)
    key.last_used_at = datetime(2026, 11, 2, 14, 5, 9, tzinfo=ZoneInfo(settings.TIME_ZONE))
    key.save(update_fields=["last_used_at"])
    portuguese = browser.get("/account/", **PT).content.decode()
    assert "12.500" in portuguese and "Ativa até 10/03/2027" in portuguese
    keys = browser.get("/account/keys/", **PT).content.decode()
    assert ">10/03/2027 12:00:00 -03:00</td>" in keys and ">02/11/2026 14:05:09 -03:00</td>" in keys
    english = browser.get("/account/").content.decode()
    assert "12,500" in english and "Active until 2027-03-10" in english
    keys = browser.get("/account/keys/").content.decode()
    assert ">2027-03-10 12:00:00 -03:00</td>" in keys and ">2026-11-02 14:05:09 -03:00</td>" in keys


def test_session_statuses_and_service_refusals_are_translated(customer, settings) -> None:
    browser, account = customer
    for n in range(account.plan.max_active_sessions):
        Session.objects.create(account=account, name=f"s{n}")
    page = browser.get("/account/sessions/", **PT).content.decode()
    assert "Desconectada" in page
    refused = browser.post("/account/sessions/", {"name": "one too many"}, **PT)
    assert refused.status_code == 400
    assert "Seu plano não permite mais sessões; exclua uma ou mude de plano." in refused.content.decode()
    english = browser.post("/account/sessions/", {"name": "one too many"}).content.decode()
    assert "delete one or upgrade the plan" in english


def test_the_account_areas_404_and_403_pages_are_translated(customer, admin_client) -> None:
    browser, _ = customer
    missing = browser.get("/account/webhooks/nope/edit/", **PT)
    assert missing.status_code == 404 and "Página não encontrada" in missing.content.decode()
    assert "Not found" in browser.get("/account/no-such-page/").content.decode()
    staff = admin_client.get("/account/", **PT)
    assert staff.status_code == 403 and "Nenhuma conta de cliente" in staff.content.decode()


def test_the_sign_in_refusal_429_is_translated(client, customer, settings) -> None:
    settings.PONTE_SIGNIN_RATE = "1/h"
    client.post("/account/login/", {"username": "ana@example.com", "password": "wrong"}, **PT)
    refused = client.post("/account/login/", {"username": "ana@example.com", "password": PASSWORD}, **PT)
    assert refused.status_code == 429
    assert "Muitas tentativas de entrar. Aguarde um minuto e tente de novo." in refused.content.decode()


def test_the_key_form_names_a_bad_address_and_the_key_list_its_status_in_portuguese(customer) -> None:
    browser, account = customer
    reply = browser.post("/account/keys/", {"role": "viewer", "allowed_ips": "10.0.0.1\nnot-an-ip"}, **PT)
    assert reply.status_code == 400
    assert "&#x27;not-an-ip&#x27; não é um endereço IP nem um CIDR." in reply.content.decode()
    key, _ = api_key_create(account=account, role="viewer")
    browser.post(f"/account/keys/{key.pk}/revoke/")
    page = browser.get("/account/keys/", **PT).content.decode()
    row = re.search(rf'<tr data-prefix="{key.prefix}">.*?</tr>', page, re.S)
    assert row and "revogada" in row.group(0)
