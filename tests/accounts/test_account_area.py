"""The customer account area (/account/): sign-up, sign-in, password reset, the overview, keys."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Account, ApiKey, Subscription
from accounts.services import api_key_create, subscription_set

KEY_PATTERN = r"ponte_[a-z0-9]{8}_[A-Za-z0-9_-]+"


def test_sign_up_creates_a_free_account_and_signs_in_at_once(client, default_plans) -> None:
    reply = client.post(
        "/account/signup/",
        {"email": "Bia@Example.com", "password": "correct horse 77", "confirmation": "correct horse 77"},
    )
    assert reply.status_code == 302 and reply["Location"] == "/account/"
    account = Account.objects.get(user__username="bia@example.com")
    assert account.plan.name == "Free" and account.email == "bia@example.com"
    page = client.get("/account/")
    assert page.status_code == 200 and b"Plan: Free" in page.content


def test_sign_up_shows_field_errors_for_mismatched_and_weak_passwords(client, default_plans) -> None:
    mismatch = client.post(
        "/account/signup/", {"email": "c@example.com", "password": "correct horse 77", "confirmation": "x"}
    )
    assert mismatch.status_code == 400 and "The two passwords differ." in mismatch.content.decode()
    weak = client.post(
        "/account/signup/", {"email": "c@example.com", "password": "123", "confirmation": "123"}
    )
    assert weak.status_code == 400 and "too short" in weak.content.decode()
    assert not Account.objects.exists()


def test_sign_up_refuses_an_email_already_registered(client, customer) -> None:
    reply = client.post(
        "/account/signup/",
        {"email": "ana@example.com", "password": "another pass 99", "confirmation": "another pass 99"},
    )
    assert reply.status_code == 400 and "already exists" in reply.content.decode()
    assert Account.objects.count() == 1


def test_sign_up_with_email_verification_on_waits_for_the_mailed_link(
    client, default_plans, settings, mailoutbox
) -> None:
    settings.PONTE_ACCOUNT_EMAIL_VERIFICATION = True
    client.post(
        "/account/signup/",
        {"email": "d@example.com", "password": "correct horse 77", "confirmation": "correct horse 77"},
    )
    user = get_user_model().objects.get(username="d@example.com")
    assert not user.is_active and client.get("/account/").status_code == 302
    link = re.search(r"http://testserver(/account/verify/\S+)", mailoutbox[0].body).group(1)
    assert client.get(link).status_code == 302
    user.refresh_from_db()
    assert user.is_active and client.get("/account/").status_code == 200


def test_sign_up_is_rate_limited_per_address(client, default_plans, settings) -> None:
    settings.PONTE_SIGNUP_RATE = "1/h"
    form = {"password": "correct horse 77", "confirmation": "correct horse 77"}
    assert client.post("/account/signup/", {**form, "email": "one@example.com"}).status_code == 302
    client.post("/account/logout/")
    refused = client.post("/account/signup/", {**form, "email": "two@example.com"})
    assert refused.status_code == 429 and b"Too many sign-ups" in refused.content
    assert Account.objects.count() == 1


def test_pages_need_a_signed_in_customer(client, default_plans) -> None:
    for path in [
        "/account/",
        "/account/keys/",
        "/account/sessions/",
        "/account/webhooks/",
        "/account/deliveries/",
    ]:
        reply = client.get(path)
        assert reply.status_code == 302 and reply["Location"].startswith("/account/login/")


def test_staff_without_a_customer_account_are_told_so(admin_client) -> None:
    reply = admin_client.get("/account/")
    assert reply.status_code == 403 and b"No customer account" in reply.content


def test_sign_in_is_rate_limited_per_username_and_client_address(client, customer, settings) -> None:
    settings.PONTE_SIGNIN_RATE = "3/h"
    for _ in range(3):
        wrong = client.post("/account/login/", {"username": "ana@example.com", "password": "wrong"})
        assert wrong.status_code == 200 and b"correct" in wrong.content  # Django's field error
    refused = client.post(
        "/account/login/", {"username": "ana@example.com", "password": "a long pass phrase 42"}
    )
    assert refused.status_code == 429 and b"Too many sign-in attempts" in refused.content
    assert "_auth_user_id" not in client.session


def test_sign_in_and_out(client, customer) -> None:
    reply = client.post(
        "/account/login/", {"username": "ana@example.com", "password": "a long pass phrase 42"}
    )
    assert reply.status_code == 302 and reply["Location"] == "/account/"
    signed_out = client.post("/account/logout/")
    assert signed_out.status_code == 302 and signed_out["Location"] == "/account/login/"
    assert client.get("/account/").status_code == 302


def test_forms_refuse_a_post_without_csrf_token(customer) -> None:
    strict = Client(enforce_csrf_checks=True)
    strict.login(username="ana@example.com", password="a long pass phrase 42")
    assert strict.post("/account/keys/", {"role": "viewer"}).status_code == 403


def test_password_reset_mails_a_link_that_sets_a_new_password(client, customer, mailoutbox) -> None:
    assert client.post("/account/password-reset/", {"email": "ana@example.com"}).status_code == 302
    link = re.search(r"http://testserver(/account/reset/\S+)", mailoutbox[0].body).group(1)
    form = client.get(link, follow=True)
    new = {"new_password1": "brand new secret 55", "new_password2": "brand new secret 55"}
    done = client.post(form.redirect_chain[-1][0], new)
    assert done.status_code == 302 and done["Location"] == "/account/password-reset/done/"
    assert client.login(username="ana@example.com", password="brand new secret 55")


def test_overview_shows_plan_limits_usage_and_bonds_state(customer) -> None:
    browser, account = customer
    page = browser.get("/account/").content.decode()
    assert "Plan: Free" in page and "480" in page  # messages/day of the Free plan
    assert "Messages sent today" in page and "Requests this minute" in page
    assert "No bonds subscription" in page
    subscription_set(account=account, product=Subscription.Product.BONDS, status=Subscription.Status.PAST_DUE)
    assert "Payment pending" in browser.get("/account/").content.decode()


def test_overview_counts_the_requests_of_this_minute(customer, keyed_client) -> None:
    browser, account = customer
    _, plaintext = api_key_create(account=account, role="viewer")
    for _ in range(3):
        keyed_client(plaintext).get("/api/me")
    page = browser.get("/account/").content.decode()
    assert re.search(r"Requests this minute \(busiest key\)</th>\s*<td>3 of 40", page)


def test_a_new_key_is_shown_once_and_works(customer, api_client) -> None:
    browser, account = customer
    session = account.sessions.create(name="s1")
    reply = browser.post(
        "/account/keys/",
        {
            "name": "crm",
            "role": "operator",
            "allowed_ips": "127.0.0.1\n10.0.0.0/8",
            "allowed_sessions": [str(session.pk)],
        },
        follow=True,
    )
    shown = re.findall(KEY_PATTERN, reply.content.decode())
    assert len(shown) == 1
    key = ApiKey.objects.get(account=account, name="crm")
    assert key.allowed_ips == ["127.0.0.1/32", "10.0.0.0/8"] and key.allowed_sessions == [str(session.pk)]
    assert api_client.get("/api/me", HTTP_X_API_KEY=shown[0]).status_code == 200
    assert re.findall(KEY_PATTERN, browser.get("/account/keys/").content.decode()) == []


def test_key_form_shows_field_errors(customer) -> None:
    browser, _ = customer
    reply = browser.post(
        "/account/keys/", {"role": "boss", "allowed_ips": "not-an-ip", "expires_on": "2001-01-01"}
    )
    page = reply.content.decode()
    assert reply.status_code == 400
    assert "Select a valid choice" in page and "is not an IP address or CIDR" in page and "Pick today" in page
    assert not ApiKey.objects.exists()


def test_revoking_a_key_stops_it(customer, api_client) -> None:
    browser, account = customer
    key, plaintext = api_key_create(account=account, role="viewer")
    assert browser.post(f"/account/keys/{key.pk}/revoke/").status_code == 302
    assert api_client.get("/api/me", HTTP_X_API_KEY=plaintext).status_code == 401


def test_a_customer_cannot_touch_another_accounts_key(customer, make_account) -> None:
    browser, _ = customer
    other_key, _ = api_key_create(account=make_account(name="other"), role="admin")
    assert browser.post(f"/account/keys/{other_key.pk}/revoke/").status_code == 404
    other_key.refresh_from_db()
    assert other_key.revoked_at is None
    assert other_key.prefix not in browser.get("/account/keys/").content.decode()


def _session_rows_text() -> list[str]:
    """Every django_session row as stored (signed, base64, maybe zlib) and decoded, as text."""
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session

    rows = list(Session.objects.all())
    assert rows  # the signed-in customer has one: the check below reads something
    decoded = [repr(SessionStore().decode(row.session_data)) for row in rows]
    return [row.session_data for row in rows] + decoded


def test_an_issued_key_waits_in_no_session_row(customer) -> None:
    browser, _ = customer
    reply = browser.post("/account/keys/", {"name": "crm", "role": "operator"})
    assert reply.status_code == 200
    [plaintext] = re.findall(KEY_PATTERN, reply.content.decode())
    secret = plaintext.split("_", 2)[2]
    for text in _session_rows_text():
        assert plaintext not in text and secret not in text
    assert all(secret not in cookie.value for cookie in browser.cookies.values())


def test_the_reply_that_shows_a_key_is_not_cached_and_a_reload_shows_it_no_more(customer) -> None:
    browser, _ = customer
    reply = browser.post("/account/keys/", {"name": "crm", "role": "viewer"})
    [plaintext] = re.findall(KEY_PATTERN, reply.content.decode())
    assert "no-store" in reply["Cache-Control"]
    page = reply.content.decode()
    assert "it will not be shown again" in page and "history.replaceState" in page
    assert plaintext not in browser.get("/account/keys/").content.decode()


def test_the_key_form_defaults_to_operator_and_says_what_each_role_can_do(customer) -> None:
    browser, _ = customer
    page = browser.get("/account/keys/").content.decode()
    assert re.search(r'<option value="operator" selected>', page)
    assert "Viewer: reads only" in page and "Operator: also connects sessions, sends messages" in page
    assert "Admin: everything, also creates and deletes sessions" in page


def test_the_key_form_in_portuguese_says_what_each_role_can_do(customer) -> None:
    browser, _ = customer
    page = browser.get("/account/keys/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "Operator: também conecta sessões" in page


def test_the_sign_in_form_asks_for_the_email(client, default_plans) -> None:
    page = client.get("/account/login/").content.decode()
    assert re.search(r'<label for="id_username">Email:?</label>', page) and 'type="email"' in page
    assert "Username" not in page
    portuguese = client.get("/account/login/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert re.search(r'<label for="id_username">E-mail:?</label>', portuguese)
