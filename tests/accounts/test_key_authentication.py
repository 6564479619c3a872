"""Key resolution: every header style against valid, unknown, expired, revoked and IP-restricted keys."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import RequestFactory
from django.utils import timezone

from accounts.authentication import authenticate_presented, presented_bearer_or_query_key
from accounts.models import ApiKey
from accounts.services import api_key_authenticate, api_key_create, api_key_revoke, api_keys_forget
from core.errors import Forbidden, NotAuthenticated

pytestmark = pytest.mark.django_db


@pytest.fixture
def keys(account) -> dict[str, str]:
    """One plaintext per condition."""
    valid = api_key_create(account=account, role="viewer")[1]
    expired = api_key_create(
        account=account, role="viewer", expires_at=timezone.now() - timedelta(seconds=1)
    )[1]
    revoked_key, revoked = api_key_create(account=account, role="viewer")
    api_key_revoke(key=revoked_key)
    elsewhere = api_key_create(account=account, role="viewer", allowed_ips=["203.0.113.0/24"])[1]
    return {
        "valid": valid,
        "unknown": "ponte_abcdefgh_" + "x" * 40,
        "malformed": "not-a-key",
        "wrong_secret": valid[:-4] + "AAAA",
        "expired": expired,
        "revoked": revoked,
        "ip_outside": elsewhere,
    }


INVALID = ["unknown", "malformed", "wrong_secret", "expired", "revoked"]


@pytest.mark.parametrize("mount", ["/api/me", "/gateway/me"])
def test_a_valid_x_api_key_header_is_accepted(api_client, keys, mount) -> None:
    response = api_client.get(mount, HTTP_X_API_KEY=keys["valid"])
    assert response.status_code == 200
    assert response.json()["key"]["role"] == "viewer"


def test_the_header_name_is_case_insensitive(live_server, keys) -> None:
    import requests

    response = requests.get(f"{live_server.url}/api/me", headers={"x-api-key": keys["valid"]}, timeout=10)
    assert response.status_code == 200


@pytest.mark.parametrize("condition", INVALID)
def test_invalid_keys_look_the_same_on_the_messaging_interface(api_client, keys, condition) -> None:
    response = api_client.get("/api/me", HTTP_X_API_KEY=keys[condition])
    assert response.status_code == 401
    assert response.json() == {
        "statusCode": 401,
        "error": "Unauthorized",
        "message": "A valid API key is required (missing, invalid, revoked or expired).",
    }


@pytest.mark.parametrize("condition", INVALID)
def test_invalid_keys_look_the_same_on_the_gateway(api_client, keys, condition) -> None:
    response = api_client.get("/gateway/me", HTTP_X_API_KEY=keys[condition])
    assert response.status_code == 401
    assert response.json() == {"error": "Unauthorized"}


def test_a_missing_key_is_unauthorized(api_client) -> None:
    assert api_client.get("/api/me").status_code == 401
    assert api_client.get("/gateway/me").json() == {"error": "Unauthorized"}


def test_a_key_used_outside_its_ip_allow_list_is_forbidden(api_client, keys) -> None:
    response = api_client.get("/api/me", HTTP_X_API_KEY=keys["ip_outside"], REMOTE_ADDR="198.51.100.7")
    assert response.status_code == 403
    assert response.json()["error"] == "Forbidden"


def test_a_key_used_inside_its_ip_allow_list_is_accepted(api_client, keys) -> None:
    response = api_client.get("/api/me", HTTP_X_API_KEY=keys["ip_outside"], REMOTE_ADDR="203.0.113.9")
    assert response.status_code == 200


def test_forwarded_addresses_count_only_behind_a_trusted_proxy(api_client, keys, settings) -> None:
    spoofed = {"HTTP_X_API_KEY": keys["ip_outside"], "REMOTE_ADDR": "198.51.100.7"}
    spoofed["HTTP_X_FORWARDED_FOR"] = "203.0.113.9"
    assert api_client.get("/api/me", **spoofed).status_code == 403
    settings.PONTE_TRUSTED_PROXIES = ["198.51.100.0/24"]
    assert api_client.get("/api/me", **spoofed).status_code == 200


# Bearer and ?key= (the bonds and MCP styles) resolve through the same service.


def _request(**kwargs):
    return RequestFactory().get("/bonds/api/", **kwargs)


@pytest.mark.parametrize("style", ["bearer", "query"])
def test_bearer_and_query_styles_resolve_a_valid_key(keys, style) -> None:
    request = (
        _request(HTTP_AUTHORIZATION=f"Bearer {keys['valid']}")
        if style == "bearer"
        else _request(data={"key": keys["valid"]})
    )
    key = authenticate_presented(request, presented_bearer_or_query_key(request))
    assert isinstance(key, ApiKey) and key.role == "viewer"


@pytest.mark.parametrize("value", ["bearer {key}", "BEARER {key}", "BeArEr  {key}", "Bearer\t{key}"])
def test_the_bearer_scheme_is_read_in_any_case_and_spacing(keys, value) -> None:
    """Auth schemes are case-insensitive (RFC 9110 §11.1): bonds reads `bearer <key>` like `Bearer <key>`."""
    request = _request(HTTP_AUTHORIZATION=value.format(key=keys["valid"]))
    assert presented_bearer_or_query_key(request) == keys["valid"]
    assert authenticate_presented(request, presented_bearer_or_query_key(request)).role == "viewer"


def test_the_bonds_list_takes_a_key_sent_with_a_lower_case_bearer_scheme(client, keys) -> None:
    reply = client.get("/bonds/api/", HTTP_AUTHORIZATION=f"bearer {keys['valid']}").json()
    assert reply["response"]["status"] != "preview"


@pytest.mark.parametrize("style", ["bearer", "query"])
@pytest.mark.parametrize("condition", INVALID)
def test_bearer_and_query_styles_refuse_invalid_keys_alike(keys, style, condition) -> None:
    request = (
        _request(HTTP_AUTHORIZATION=f"Bearer {keys[condition]}")
        if style == "bearer"
        else _request(data={"key": keys[condition]})
    )
    with pytest.raises(NotAuthenticated):
        authenticate_presented(request, presented_bearer_or_query_key(request))


@pytest.mark.parametrize("style", ["bearer", "query"])
def test_bearer_and_query_styles_enforce_the_ip_allow_list(keys, style) -> None:
    kwargs = {"REMOTE_ADDR": "198.51.100.7"}
    request = (
        _request(HTTP_AUTHORIZATION=f"Bearer {keys['ip_outside']}", **kwargs)
        if style == "bearer"
        else _request(data={"key": keys["ip_outside"]}, **kwargs)
    )
    with pytest.raises(Forbidden):
        authenticate_presented(request, presented_bearer_or_query_key(request))


def test_the_bearer_header_wins_over_the_query_parameter(keys) -> None:
    request = _request(HTTP_AUTHORIZATION=f"Bearer {keys['valid']}", data={"key": "other"})
    assert presented_bearer_or_query_key(request) == keys["valid"]


def test_only_a_digest_of_the_secret_is_stored(account) -> None:
    key, plaintext = api_key_create(account=account, role="admin")
    stored = ApiKey.objects.filter(pk=key.pk).values().get()
    assert plaintext not in str(stored)
    assert plaintext.startswith(f"ponte_{key.prefix}_")


def test_last_use_is_written_at_most_once_a_minute(api_client, account) -> None:
    key, plaintext = api_key_create(account=account, role="viewer")
    api_client.get("/api/me", HTTP_X_API_KEY=plaintext)
    first = ApiKey.objects.get(pk=key.pk).last_used_at
    api_client.get("/api/me", HTTP_X_API_KEY=plaintext)
    assert first is not None and ApiKey.objects.get(pk=key.pk).last_used_at == first
    # A minute and more passes: the row ages, and the cached key and touch claim expire.
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=first - timedelta(minutes=2))
    cache.clear()
    api_keys_forget(prefixes=[key.prefix])
    api_client.get("/api/me", HTTP_X_API_KEY=plaintext)
    assert ApiKey.objects.get(pk=key.pk).last_used_at > first


def test_a_repeated_keyed_call_resolves_the_key_without_a_query(account, django_assert_num_queries) -> None:
    _, plaintext = api_key_create(account=account, role="viewer")
    api_key_authenticate(plaintext=plaintext, client_ip="127.0.0.1")
    with django_assert_num_queries(0):
        key = api_key_authenticate(plaintext=plaintext, client_ip="127.0.0.1")
    assert key.account.plan.name == "Empresarial"


def test_revoking_a_cached_key_takes_effect_at_once(account) -> None:
    key, plaintext = api_key_create(account=account, role="viewer")
    api_key_authenticate(plaintext=plaintext, client_ip="127.0.0.1")
    api_key_revoke(key=key)
    with pytest.raises(NotAuthenticated):
        api_key_authenticate(plaintext=plaintext, client_ip="127.0.0.1")


def test_a_plan_change_reaches_cached_keys_at_once(api_client, account) -> None:
    _, plaintext = api_key_create(account=account, role="viewer")
    assert api_client.get("/api/me", HTTP_X_API_KEY=plaintext)["X-RateLimit-Limit"] == "6000"
    account.plan.requests_per_minute = 77
    account.plan.save()
    assert api_client.get("/api/me", HTTP_X_API_KEY=plaintext)["X-RateLimit-Limit"] == "77"


def test_deactivating_an_account_locks_out_its_cached_keys(api_client, account) -> None:
    _, plaintext = api_key_create(account=account, role="viewer")
    assert api_client.get("/api/me", HTTP_X_API_KEY=plaintext).status_code == 200
    account.is_active = False
    account.save()
    assert api_client.get("/api/me", HTTP_X_API_KEY=plaintext).status_code == 401


def test_a_key_with_an_impossible_stored_ip_refuses_calls_instead_of_failing(api_client, account) -> None:
    """An allow-list saved before IPs were checked may hold a line that is no address: it matches nothing,
    the valid lines still admit their callers, and no call answers 500."""
    key, plaintext = api_key_create(account=account, role="viewer")
    ApiKey.objects.filter(pk=key.pk).update(allowed_ips=["10.0.0.300"])
    api_keys_forget(prefixes=[key.prefix])
    assert api_client.get("/api/me", HTTP_X_API_KEY=plaintext).status_code == 403

    ApiKey.objects.filter(pk=key.pk).update(allowed_ips=["10.0.0.300", "127.0.0.1"])
    api_keys_forget(prefixes=[key.prefix])
    assert api_client.get("/api/me", HTTP_X_API_KEY=plaintext).status_code == 200
