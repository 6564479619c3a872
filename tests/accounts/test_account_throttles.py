"""Throttles of the account area where mail or a lockout is at stake: password-reset mails per email
address and per client address, sign-in attempts per (username, client address) and per client address;
and the admin's sign-in, limited by the same mechanism (accounts/signin.py)."""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.services import account_signup

PASSWORD = "a long pass phrase 42"
HOME = "203.0.113.10"
ELSEWHERE = "198.51.100.20"


@pytest.fixture
def ana(default_plans) -> None:
    account_signup(email="ana@example.com", password=PASSWORD)


@pytest.fixture
def bia(default_plans) -> None:
    account_signup(email="bia@example.com", password=PASSWORD)


def _reset(client: Client, email: str, address: str = HOME, **extra):
    return client.post("/account/password-reset/", {"email": email}, REMOTE_ADDR=address, **extra)


def _sign_in(client: Client, username: str, password: str, address: str, **extra):
    return client.post(
        "/account/login/", {"username": username, "password": password}, REMOTE_ADDR=address, **extra
    )


# --- Password reset -----------------------------------------------------------------------------


def test_twenty_five_resets_in_a_row_mail_one_address_at_most_five_times(client, ana, mailoutbox) -> None:
    replies = [_reset(client, "ana@example.com") for _ in range(25)]
    assert len(mailoutbox) == 5
    assert [reply.status_code for reply in replies] == [302] * 5 + [429] * 20
    refused = replies[-1]
    assert b"Reset your password" in refused.content  # the area's own page, with its form
    assert b"Too many password reset requests" in refused.content
    assert 0 < int(refused["Retry-After"]) <= 3600


def test_the_limit_per_email_address_ignores_its_case(client, ana, mailoutbox) -> None:
    for spelling in [
        "ana@example.com",
        "ANA@example.com",
        "Ana@Example.com",
        "ana@EXAMPLE.com",
        "aNa@example.com",
    ]:
        assert _reset(client, spelling).status_code == 302
    assert _reset(client, "ANA@EXAMPLE.COM").status_code == 429
    assert len(mailoutbox) == 5


def test_another_email_address_still_gets_its_mail_after_one_is_throttled(
    client, ana, bia, mailoutbox
) -> None:
    for _ in range(25):
        _reset(client, "ana@example.com")
    assert _reset(client, "bia@example.com").status_code == 302
    assert mailoutbox[-1].to == ["bia@example.com"] and len(mailoutbox) == 6


def test_a_throttled_reset_does_not_tell_whether_the_address_has_an_account(client, ana, mailoutbox) -> None:
    known = [_reset(client, "ana@example.com") for _ in range(6)]
    unknown = [_reset(client, "nobody@example.com") for _ in range(6)]
    assert [r.status_code for r in known] == [r.status_code for r in unknown] == [302] * 5 + [429]
    assert {r["Location"] for r in known[:5] + unknown[:5]} == {"/account/password-reset/sent/"}
    assert b"Too many password reset requests" in unknown[-1].content
    assert len(mailoutbox) == 5  # only the account's own mails


def test_one_client_address_is_limited_across_email_addresses(client, ana, bia, settings, mailoutbox) -> None:
    settings.PONTE_PASSWORD_RESET_CLIENT_RATE = "3/h"
    for email in ["ana@example.com", "bia@example.com", "nobody@example.com"]:
        assert _reset(client, email).status_code == 302
    assert _reset(client, "someone@example.com").status_code == 429
    assert _reset(client, "ana@example.com").status_code == 429
    # Another client address still gets its mail.
    assert _reset(client, "ana@example.com", ELSEWHERE).status_code == 302
    assert [mail.to for mail in mailoutbox] == [["ana@example.com"], ["bia@example.com"], ["ana@example.com"]]


def test_refused_resets_use_up_nothing_of_the_client_addresses_allowance(
    client, ana, bia, mailoutbox
) -> None:
    """Twenty refused resets of one mailbox leave the client's 20 an hour for others."""
    for _ in range(25):
        _reset(client, "ana@example.com")
    for n in range(14):
        assert _reset(client, f"user{n}@example.com").status_code == 302
    assert _reset(client, "bia@example.com").status_code == 302
    assert _reset(client, "late@example.com").status_code == 429  # 5 + 14 + 1 = 20 accepted


def test_reset_counts_the_client_address_found_behind_a_trusted_proxy(
    client, ana, settings, mailoutbox
) -> None:
    settings.PONTE_TRUSTED_PROXIES = ["10.0.0.0/8"]
    settings.PONTE_PASSWORD_RESET_CLIENT_RATE = "1/h"
    proxy = "10.0.0.2"
    assert _reset(client, "ana@example.com", proxy, HTTP_X_FORWARDED_FOR=HOME).status_code == 302
    assert _reset(client, "bia@example.com", proxy, HTTP_X_FORWARDED_FOR=HOME).status_code == 429
    assert _reset(client, "bia@example.com", proxy, HTTP_X_FORWARDED_FOR=ELSEWHERE).status_code == 302


# --- Sign-in ------------------------------------------------------------------------------------


def test_a_lockout_from_one_client_address_does_not_lock_the_user_out_from_another(
    client, ana, settings
) -> None:
    settings.PONTE_SIGNIN_RATE = "3/h"
    for _ in range(3):
        assert _sign_in(client, "ana@example.com", "wrong", ELSEWHERE).status_code == 200
    locked = _sign_in(client, "ana@example.com", PASSWORD, ELSEWHERE)
    assert locked.status_code == 429 and b"Too many sign-in attempts" in locked.content
    own = Client()
    reply = _sign_in(own, "ana@example.com", PASSWORD, HOME)
    assert reply.status_code == 302 and reply["Location"] == "/account/"
    assert "_auth_user_id" in own.session


def test_the_lockout_counts_per_username_and_address_found_behind_a_trusted_proxy(
    client, ana, settings
) -> None:
    settings.PONTE_TRUSTED_PROXIES = ["10.0.0.0/8"]
    settings.PONTE_SIGNIN_RATE = "2/h"
    proxy = "10.0.0.2"
    for _ in range(2):
        _sign_in(client, "ana@example.com", "wrong", proxy, HTTP_X_FORWARDED_FOR=ELSEWHERE)
    assert (
        _sign_in(client, "ana@example.com", "wrong", proxy, HTTP_X_FORWARDED_FOR=ELSEWHERE).status_code == 429
    )
    reply = _sign_in(Client(), "ana@example.com", PASSWORD, proxy, HTTP_X_FORWARDED_FOR=HOME)
    assert reply.status_code == 302


def test_one_client_address_is_limited_across_usernames_against_password_spraying(
    client, ana, settings
) -> None:
    settings.PONTE_SIGNIN_CLIENT_RATE = "4/h"
    for n in range(4):
        assert _sign_in(client, f"user{n}@example.com", "Summer2026!", ELSEWHERE).status_code == 200
    sprayed = _sign_in(client, "ana@example.com", PASSWORD, ELSEWHERE)
    assert sprayed.status_code == 429 and "_auth_user_id" not in client.session
    assert _sign_in(Client(), "ana@example.com", PASSWORD, HOME).status_code == 302


def test_a_refused_sign_in_is_logged_with_its_path_and_address_and_without_the_password(
    client, ana, settings, caplog
) -> None:
    settings.PONTE_SIGNIN_RATE = "1/h"
    _sign_in(client, "ana@example.com", "first-guess", ELSEWHERE)
    with caplog.at_level(logging.WARNING, logger="accounts.signin"):
        assert _sign_in(client, "ana@example.com", "second-guess", ELSEWHERE).status_code == 429
    (line,) = [r.getMessage() for r in caplog.records if r.name == "accounts.signin"]
    assert line == f"Sign-in refused at /account/login/: too many attempts from {ELSEWHERE}"


# --- The admin's sign-in: the same limits, page and log line ------------------------------------


@pytest.fixture
def staff(db) -> None:
    get_user_model().objects.create_superuser("staff", "staff@example.com", PASSWORD)


def _admin_sign_in(client: Client, username: str, password: str, address: str, **extra):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        **extra,
    )


def test_forty_wrong_admin_passwords_lock_the_right_one_out_from_that_address(client, staff, caplog) -> None:
    """The probe's attack: 40 wrong passwords for a superuser, then the right one."""
    replies = [_admin_sign_in(client, "staff", f"guess-{n}", ELSEWHERE) for n in range(40)]
    assert [reply.status_code for reply in replies] == [200] * 10 + [429] * 30
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="accounts.signin"):
        locked = _admin_sign_in(client, "staff", PASSWORD, ELSEWHERE)
    assert locked.status_code == 429 and "_auth_user_id" not in client.session
    assert 0 < int(locked["Retry-After"]) <= 60
    # The admin's own sign-in page, its form kept, with the account area's refusal.
    assert b'id="login-form"' in locked.content and b"Too many sign-in attempts" in locked.content
    assert [r.getMessage() for r in caplog.records if r.name == "accounts.signin"] == [
        f"Sign-in refused at /admin/login/: too many attempts from {ELSEWHERE}"
    ]


def test_an_admin_lockout_from_one_address_does_not_lock_the_staff_member_out_from_another(
    client, staff, settings
) -> None:
    settings.PONTE_SIGNIN_RATE = "3/h"
    for _ in range(3):
        assert _admin_sign_in(client, "STAFF ", "wrong", ELSEWHERE).status_code == 200
    assert _admin_sign_in(client, "staff", PASSWORD, ELSEWHERE).status_code == 429
    own = Client()
    reply = _admin_sign_in(own, "staff", PASSWORD, HOME)
    assert reply.status_code == 302 and reply["Location"] == "/admin/"
    assert "_auth_user_id" in own.session


def test_one_address_is_limited_across_admin_usernames(client, staff, settings) -> None:
    settings.PONTE_SIGNIN_CLIENT_RATE = "4/h"
    for name in ["admin", "root", "administrator", "django"]:
        assert _admin_sign_in(client, name, "admin", ELSEWHERE).status_code == 200
    assert _admin_sign_in(client, "staff", PASSWORD, ELSEWHERE).status_code == 429
    assert _admin_sign_in(Client(), "staff", PASSWORD, HOME).status_code == 302


def test_the_admin_lockout_counts_the_address_found_behind_a_trusted_proxy(client, staff, settings) -> None:
    settings.PONTE_TRUSTED_PROXIES = ["10.0.0.0/8"]
    settings.PONTE_SIGNIN_RATE = "2/h"
    proxy = "10.0.0.2"
    for _ in range(3):
        _admin_sign_in(client, "staff", "wrong", proxy, HTTP_X_FORWARDED_FOR=ELSEWHERE)
    assert _admin_sign_in(client, "staff", PASSWORD, proxy, HTTP_X_FORWARDED_FOR=ELSEWHERE).status_code == 429
    assert _admin_sign_in(Client(), "staff", PASSWORD, proxy, HTTP_X_FORWARDED_FOR=HOME).status_code == 302


def test_showing_the_admin_sign_in_page_counts_nothing(client, staff, settings) -> None:
    settings.PONTE_SIGNIN_CLIENT_RATE = "2/h"
    for _ in range(5):
        assert client.get("/admin/login/", REMOTE_ADDR=ELSEWHERE).status_code == 200
    assert _admin_sign_in(client, "staff", PASSWORD, ELSEWHERE).status_code == 302
