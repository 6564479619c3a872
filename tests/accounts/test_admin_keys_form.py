"""The API key admin form: an IP allow-list one entry per line, a pick-list of the account's sessions,
and a field error (never a 500) for bad input."""

from __future__ import annotations

import re

import pytest

from accounts.models import ApiKey
from accounts.services import api_key_create
from messaging.models import Session

ADD = "/admin/accounts/apikey/add/"


@pytest.fixture
def staff(admin_client):
    return admin_client


def _issue(staff, account, **fields):
    data = {"account": account.pk, "name": "k", "role": "viewer", "allowed_ips": "", **fields}
    return staff.post(ADD, data)


def _change(staff, key, **fields):
    data = {"name": key.name, "role": key.role, "allowed_ips": "", **fields}
    return staff.post(f"/admin/accounts/apikey/{key.pk}/change/", data)


def test_an_impossible_address_is_a_field_error_naming_its_line(staff, account):
    reply = _issue(staff, account, allowed_ips="10.0.0.1\n10.0.0.300")
    assert reply.status_code == 200
    errors = reply.context["adminform"].form.errors["allowed_ips"]
    assert errors == ["Line 2: '10.0.0.300' is not an IP address or CIDR."]
    assert not ApiKey.objects.exists()


def test_a_json_list_is_not_taken_for_an_address(staff, account):
    reply = _issue(staff, account, allowed_ips='["10.0.0.300"]')
    assert reply.status_code == 200
    assert "Line 1:" in reply.context["adminform"].form.errors["allowed_ips"][0]


def test_ips_and_cidrs_one_per_line_are_stored_as_the_api_stores_them(staff, account):
    reply = _issue(staff, account, allowed_ips="203.0.113.7\n\n 10.0.0.0/8 \n2001:db8::/32\n::1")
    assert reply.status_code == 200 and "New API key" in reply.content.decode()
    key = ApiKey.objects.get()
    assert key.allowed_ips == ["203.0.113.7/32", "10.0.0.0/8", "2001:db8::/32", "::1/128"]
    api_twin, _ = api_key_create(
        account=account, role="viewer", allowed_ips=["203.0.113.7", "10.0.0.0/8", "2001:db8::/32", "::1"]
    )
    assert api_twin.allowed_ips == key.allowed_ips


def test_changing_a_key_checks_its_ips_too(staff, account):
    key, _ = api_key_create(account=account, role="viewer", name="k", allowed_ips=["10.0.0.0/8"])
    page = staff.get(f"/admin/accounts/apikey/{key.pk}/change/")
    assert "10.0.0.0/8</textarea>" in page.content.decode()
    reply = _change(staff, key, allowed_ips="fe80::1/200")
    assert reply.status_code == 200
    assert reply.context["adminform"].form.errors["allowed_ips"] == [
        "Line 1: 'fe80::1/200' is not an IP address or CIDR."
    ]
    key.refresh_from_db()
    assert key.allowed_ips == ["10.0.0.0/8"]


def test_allowed_sessions_offer_only_the_keys_account_sessions(staff, account, make_account):
    mine = Session.objects.create(account=account, name="mine")
    theirs = Session.objects.create(account=make_account(name="other"), name="theirs")
    key, _ = api_key_create(account=account, role="viewer", name="k")
    page = staff.get(f"/admin/accounts/apikey/{key.pk}/change/").content.decode()
    assert str(mine.pk) in page and str(theirs.pk) not in page

    assert _change(staff, key, allowed_sessions=[str(theirs.pk)]).status_code == 200
    assert _change(staff, key, allowed_sessions=[str(mine.pk)]).status_code == 302
    key.refresh_from_db()
    assert key.allowed_sessions == [str(mine.pk)]


def test_issuing_refuses_a_session_of_another_account(staff, account, make_account):
    theirs = Session.objects.create(account=make_account(name="other"), name="theirs")
    page = staff.get(ADD).content.decode()
    assert "Choose the account above first" in page and str(theirs.pk) in page
    reply = _issue(staff, account, allowed_sessions=[str(theirs.pk)])
    assert reply.status_code == 200
    assert "belong to another account" in reply.context["adminform"].form.errors["allowed_sessions"][0]
    assert not ApiKey.objects.exists()


def test_a_session_id_that_is_no_choice_is_a_field_error(staff, account):
    reply = _issue(staff, account, allowed_sessions=["not-a-uuid"])
    assert reply.status_code == 200
    assert "allowed_sessions" in reply.context["adminform"].form.errors


def test_a_deleted_session_stays_on_the_key_when_it_is_saved_again(staff, account):
    gone = Session.objects.create(account=account, name="gone")
    key, _ = api_key_create(account=account, role="viewer", name="k", allowed_sessions=[str(gone.pk)])
    gone_id = str(gone.pk)
    gone.delete()
    page = staff.get(f"/admin/accounts/apikey/{key.pk}/change/").content.decode()
    assert f"{gone_id} (deleted session)" in page
    assert _change(staff, key, allowed_sessions=[gone_id], name="renamed").status_code == 302
    key.refresh_from_db()
    assert key.allowed_sessions == [gone_id] and key.name == "renamed"


def test_a_key_issued_in_the_admin_is_shown_in_the_reply_and_kept_in_no_session_row_or_cookie(staff, account):
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session as SessionRow

    reply = _issue(staff, account)
    key = ApiKey.objects.get()
    page = reply.content.decode()
    [plaintext] = re.findall(rf"ponte_{key.prefix}_[A-Za-z0-9_-]+", page)
    assert "copy it now" in page and "no-store" in reply["Cache-Control"]
    secret = plaintext.split("_", 2)[2]
    rows = list(SessionRow.objects.all())
    assert rows
    for row in rows:
        assert secret not in row.session_data and secret not in repr(SessionStore().decode(row.session_data))
    # Not handed to the messages framework either, whose cookie (signed, not encrypted) would carry it.
    assert "messages" not in reply.cookies
    assert all(secret not in cookie.value for cookie in staff.cookies.values())
    assert plaintext not in staff.get("/admin/accounts/apikey/").content.decode()
