"""Roles: viewer reads, operator writes messages and webhooks, admin does everything."""

from __future__ import annotations

import pytest

from accounts.models import ApiKey

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("role", ["viewer", "operator", "admin"])
def test_every_role_may_read_its_own_identity(keyed_client, make_key, role) -> None:
    response = keyed_client(make_key(role)).get("/api/me")
    assert response.status_code == 200 and response.json()["key"]["role"] == role


@pytest.mark.parametrize(("role", "status"), [("viewer", 403), ("operator", 403), ("admin", 200)])
def test_only_admin_keys_list_keys(keyed_client, make_key, role, status) -> None:
    assert keyed_client(make_key(role)).get("/api/keys").status_code == status


@pytest.mark.parametrize(("role", "status"), [("viewer", 403), ("operator", 403), ("admin", 201)])
def test_only_admin_keys_issue_keys(keyed_client, make_key, role, status) -> None:
    response = keyed_client(make_key(role)).post("/api/keys", {"role": "viewer"}, format="json")
    assert response.status_code == status


def test_a_forbidden_reply_names_the_missing_role(keyed_client, viewer_key) -> None:
    body = keyed_client(viewer_key).get("/api/keys").json()
    assert body["statusCode"] == 403 and body["error"] == "Forbidden"
    assert "needs admin" in body["message"]


def test_an_issued_key_is_shown_once_and_works(keyed_client, admin_key, api_client) -> None:
    created = keyed_client(admin_key).post("/api/keys", {"role": "operator", "name": "ci"}, format="json")
    plaintext = created.json()["key"]
    listed = keyed_client(admin_key).get("/api/keys").json()["data"]
    assert all("key" not in item for item in listed)
    api_client.credentials(HTTP_X_API_KEY=plaintext)
    assert api_client.get("/api/me").json()["key"]["role"] == "operator"


def test_a_revoked_key_stops_working(keyed_client, admin_key, make_key, api_client) -> None:
    victim = make_key("viewer")
    key_id = ApiKey.objects.get(prefix=victim.split("_")[1]).pk
    assert keyed_client(admin_key).delete(f"/api/keys/{key_id}").json()["status"] == "revoked"
    api_client.credentials(HTTP_X_API_KEY=victim)
    assert api_client.get("/api/me").status_code == 401


def test_keys_of_another_account_cannot_be_revoked(keyed_client, admin_key, make_account, make_key) -> None:
    other = make_key("viewer", for_account=make_account(name="other"))
    key_id = ApiKey.objects.get(prefix=other.split("_")[1]).pk
    assert keyed_client(admin_key).delete(f"/api/keys/{key_id}").status_code == 404


def test_issuing_a_key_with_a_bad_cidr_is_a_validation_error(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post(
        "/api/keys", {"role": "viewer", "allowed_ips": ["nope"]}, format="json"
    )
    assert response.status_code == 400 and response.json()["error"] == "VALIDATION_ERROR"
    assert ApiKey.objects.count() == 1  # nothing half-written
