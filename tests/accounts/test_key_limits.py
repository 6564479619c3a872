"""A key that creates, lists or revokes keys stays inside its own limits (sessions, address ranges,
expiry): a restricted key mints, sees and revokes nothing wider than itself."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.key_limits import key_covers
from accounts.models import ApiKey
from accounts.services import account_signup, api_key_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def s1(account):
    return account.sessions.create(name="s1")


@pytest.fixture
def s2(account):
    return account.sessions.create(name="s2")


@pytest.fixture
def restricted(account, s2) -> tuple[ApiKey, str]:
    """An admin key limited to S2, to the loopback range (the test client's address) and to 30 days."""
    return api_key_create(
        account=account,
        role="admin",
        name="restricted",
        allowed_sessions=[str(s2.pk)],
        allowed_ips=["127.0.0.0/8"],
        expires_at=timezone.now() + timedelta(days=30),
    )


def _mint(keyed_client, plaintext: str, **body):
    return keyed_client(plaintext).post("/api/keys", {"role": "admin", **body}, format="json")


def test_a_key_with_one_session_cannot_create_an_unrestricted_key(keyed_client, restricted, s1, s2) -> None:
    _, plaintext = restricted
    reply = _mint(keyed_client, plaintext, name="wide")
    assert reply.status_code == 201
    minted = reply.json()
    assert minted["allowed_sessions"] == [str(s2.pk)]
    assert minted["allowed_ips"] == ["127.0.0.0/8"]
    assert minted["expires_at"] is not None
    # The minted key reaches S2 and still not S1.
    assert keyed_client(minted["key"]).get(f"/api/sessions/{s2.pk}").status_code == 200
    assert keyed_client(minted["key"]).get(f"/api/sessions/{s1.pk}").status_code == 403


def test_a_key_created_without_limits_inherits_the_creators(keyed_client, restricted, s2) -> None:
    creator, plaintext = restricted
    minted = _mint(keyed_client, plaintext).json()
    key = ApiKey.objects.get(pk=minted["id"])
    assert key.allowed_sessions == creator.allowed_sessions
    assert key.allowed_ips == creator.allowed_ips
    assert key.expires_at == creator.expires_at


def test_asking_for_a_session_the_creator_cannot_reach_is_a_403_naming_the_limit(
    keyed_client, restricted, s1, s2
) -> None:
    _, plaintext = restricted
    for sessions in ([str(s1.pk)], [str(s1.pk), str(s2.pk)]):
        reply = _mint(keyed_client, plaintext, allowed_sessions=sessions)
        body = reply.json()
        assert reply.status_code == 403 and body["error"] == "Forbidden"
        assert body["message"].startswith("allowed_sessions:") and str(s1.pk) in body["message"]
    assert ApiKey.objects.count() == 1


def test_a_narrower_session_list_is_accepted(keyed_client, account, s1, s2) -> None:
    _, plaintext = api_key_create(account=account, role="admin", allowed_sessions=[str(s1.pk), str(s2.pk)])
    reply = _mint(keyed_client, plaintext, allowed_sessions=[str(s2.pk)])
    assert reply.status_code == 201 and reply.json()["allowed_sessions"] == [str(s2.pk)]


@pytest.mark.parametrize("ranges", [["10.0.0.0/8"], ["0.0.0.0/0"], ["127.0.0.1", "192.168.1.1"], ["::/0"]])
def test_an_address_range_outside_the_creators_is_a_403_naming_the_limit(
    keyed_client, restricted, ranges
) -> None:
    _, plaintext = restricted
    reply = _mint(keyed_client, plaintext, allowed_ips=ranges)
    assert reply.status_code == 403 and reply.json()["message"].startswith("allowed_ips:")
    assert ApiKey.objects.count() == 1


def test_an_address_range_inside_the_creators_is_accepted(keyed_client, restricted) -> None:
    _, plaintext = restricted
    reply = _mint(keyed_client, plaintext, allowed_ips=["127.0.0.1", "127.1.0.0/16"])
    assert reply.status_code == 201 and reply.json()["allowed_ips"] == ["127.0.0.1/32", "127.1.0.0/16"]


def test_an_expiry_later_than_the_creators_is_a_403_naming_the_limit(keyed_client, restricted) -> None:
    _, plaintext = restricted
    later = (timezone.now() + timedelta(days=60)).isoformat()
    reply = _mint(keyed_client, plaintext, expires_at=later)
    assert reply.status_code == 403 and reply.json()["message"].startswith("expires_at:")
    assert ApiKey.objects.count() == 1


def test_an_expiry_before_the_creators_is_kept(keyed_client, restricted) -> None:
    _, plaintext = restricted
    sooner = timezone.now() + timedelta(days=10)
    minted = _mint(keyed_client, plaintext, expires_at=sooner.isoformat()).json()
    assert ApiKey.objects.get(pk=minted["id"]).expires_at == sooner


def test_a_restricted_key_cannot_list_an_unrestricted_key(keyed_client, account, restricted, s1, s2) -> None:
    creator, plaintext = restricted
    api_key_create(account=account, role="viewer", name="wide")
    api_key_create(account=account, role="viewer", name="other session", allowed_sessions=[str(s1.pk)])
    narrow, _ = api_key_create(
        account=account,
        role="viewer",
        allowed_sessions=[str(s2.pk)],
        allowed_ips=["127.0.0.1"],
        expires_at=creator.expires_at - timedelta(days=1),
    )
    listed = {item["id"] for item in keyed_client(plaintext).get("/api/keys").json()["data"]}
    assert listed == {creator.pk, narrow.pk}


def test_a_restricted_key_cannot_revoke_an_unrestricted_key(keyed_client, account, restricted) -> None:
    _, plaintext = restricted
    wide, _ = api_key_create(account=account, role="admin", name="wide")
    reply = keyed_client(plaintext).delete(f"/api/keys/{wide.pk}")
    assert reply.status_code == 403 and reply.json()["error"] == "Forbidden"
    assert "allowed_sessions" in reply.json()["message"]
    wide.refresh_from_db()
    assert wide.revoked_at is None


def test_a_restricted_key_revokes_a_key_it_created_and_itself(keyed_client, restricted) -> None:
    creator, plaintext = restricted
    minted = _mint(keyed_client, plaintext).json()
    assert keyed_client(plaintext).delete(f"/api/keys/{minted['id']}").json()["status"] == "revoked"
    assert keyed_client(plaintext).delete(f"/api/keys/{creator.pk}").json()["status"] == "revoked"


def test_an_unrestricted_key_still_mints_any_key(keyed_client, admin_key, s1) -> None:
    later = (timezone.now() + timedelta(days=400)).isoformat()
    reply = _mint(
        keyed_client, admin_key, allowed_sessions=[str(s1.pk)], allowed_ips=["::/0"], expires_at=later
    )
    assert reply.status_code == 201
    plain = _mint(keyed_client, admin_key).json()
    assert plain["allowed_sessions"] == [] and plain["allowed_ips"] == [] and plain["expires_at"] is None


def test_a_minted_key_reaches_only_the_creators_sessions_on_the_gateway(
    keyed_client, restricted, s1, s2
) -> None:
    _, plaintext = restricted
    minted = _mint(keyed_client, plaintext, role="operator").json()["key"]
    listed = keyed_client(minted).get("/gateway/sessions").json()["sessions"]
    assert [item["id"] for item in listed] == [str(s2.pk)]
    reply = keyed_client(minted).post(f"/gateway/sessions/{s1.pk}/pair/qr")
    assert reply.status_code == 403 and reply.json() == {"error": "Forbidden"}


def test_the_gateway_has_no_route_that_creates_lists_or_revokes_keys(keyed_client, restricted) -> None:
    _, plaintext = restricted
    assert keyed_client(plaintext).post("/gateway/keys", {"role": "admin"}, format="json").status_code == 404
    assert keyed_client(plaintext).get("/gateway/keys").status_code == 404


def test_the_account_area_is_bound_by_no_key(default_plans, s1) -> None:
    """A signed-in customer owns the account: they issue unrestricted keys and see and revoke them all,
    including those a restricted key could not."""
    _, account = account_signup(email="owner@example.com", password="a long pass phrase 42")
    restricted_key, _ = api_key_create(account=account, role="admin", allowed_ips=["127.0.0.1"])
    browser = Client()
    browser.login(username="owner@example.com", password="a long pass phrase 42")
    assert browser.post("/account/keys/", {"name": "wide", "role": "admin"}).status_code == 200
    wide = ApiKey.objects.get(account=account, name="wide")
    assert wide.allowed_sessions == [] and wide.allowed_ips == [] and wide.expires_at is None
    page = browser.get("/account/keys/").content.decode()
    assert wide.prefix in page and restricted_key.prefix in page
    assert browser.post(f"/account/keys/{wide.pk}/revoke/").status_code == 302
    wide.refresh_from_db()
    assert wide.revoked_at is not None


def _key(**limits) -> ApiKey:
    return ApiKey(role="admin", **limits)


@pytest.mark.parametrize(
    ("outer", "inner", "covered"),
    [
        ({}, {"allowed_sessions": ["a"], "allowed_ips": ["10.0.0.0/8"]}, True),
        ({"allowed_sessions": ["a"]}, {}, False),
        ({"allowed_sessions": ["a", "b"]}, {"allowed_sessions": ["b"]}, True),
        ({"allowed_sessions": ["a"]}, {"allowed_sessions": ["a", "b"]}, False),
        ({"allowed_ips": ["10.0.0.0/8"]}, {}, False),
        ({"allowed_ips": ["10.0.0.0/8"]}, {"allowed_ips": ["10.1.2.3/32", "10.9.0.0/16"]}, True),
        ({"allowed_ips": ["10.0.0.0/16"]}, {"allowed_ips": ["10.0.0.0/8"]}, False),
        ({"allowed_ips": ["10.0.0.0/8"]}, {"allowed_ips": ["::ffff:10.0.0.0/104"]}, False),
        ({"allowed_ips": ["2001:db8::/32"]}, {"allowed_ips": ["2001:db8:1::/48"]}, True),
        ({"expires_at": "soon"}, {}, False),
        ({"expires_at": "soon"}, {"expires_at": "sooner"}, True),
        ({"expires_at": "sooner"}, {"expires_at": "soon"}, False),
    ],
)
def test_a_key_covers_another_only_when_each_limit_is_inside_its_own(outer, inner, covered) -> None:
    now = timezone.now()
    times = {"soon": now + timedelta(days=2), "sooner": now + timedelta(days=1)}
    for limits in (outer, inner):
        if "expires_at" in limits:
            limits["expires_at"] = times[limits["expires_at"]]
    assert key_covers(_key(**outer), _key(**inner)) is covered
