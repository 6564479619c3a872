"""Bad input gets a 4xx in each interface's own shape, never a 500: oversized bodies, too-deep JSON,
NUL characters and lone surrogates, out-of-range pages, numbers for strings, absurd key expiries."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import ApiKey

pytestmark = pytest.mark.django_db

TEN_MB = b'{"name": "' + b"x" * (10 * 1024 * 1024) + b'"}'


def nested(depth: int) -> str:
    return '{"name": "deep", "x": ' + "[" * depth + "]" * depth + "}"


def test_a_ten_megabyte_body_is_a_413_in_the_messaging_shape(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post("/api/sessions", TEN_MB, content_type="application/json")
    assert response.status_code == 413
    body = response.json()
    assert body["statusCode"] == 413 and body["error"] == "PAYLOAD_TOO_LARGE"
    assert str(8 * 1024 * 1024) in body["message"]


def test_a_ten_megabyte_body_is_a_413_in_the_gateway_shape(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post("/gateway/webhooks", TEN_MB, content_type="application/json")
    assert response.status_code == 413
    assert response.json() == {"error": "Request body too large"}


def test_a_ten_megabyte_body_is_a_413_in_the_instance_shape(api_client) -> None:
    response = api_client.put("/instances/whatever/instance", TEN_MB, content_type="application/json")
    assert response.status_code == 413
    body = response.json()
    assert body["status"] == 413 and body["error"] == "PAYLOAD_TOO_LARGE"


def test_a_body_over_the_limit_on_bonds_answers_200_with_the_outcome_in_the_status(api_client) -> None:
    response = api_client.generic("GET", "/bonds/api/", TEN_MB, content_type="application/json")
    assert response.status_code == 200
    assert response.json()["response"]["status"] == "payload_too_large"
    assert response.json()["bonds"] == []


@override_settings(PONTE_MAX_BODY_BYTES=1000)
def test_the_body_limit_is_the_setting(keyed_client, admin_key) -> None:
    client = keyed_client(admin_key)
    assert client.post("/api/sessions", {"name": "a" * 50}, format="json").status_code == 201
    big = client.post("/api/sessions", {"name": "a" * 1000}, format="json")
    assert big.status_code == 413


def test_json_nested_deeper_than_the_limit_is_a_400(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post("/api/sessions", nested(40), content_type="application/json")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "VALIDATION_ERROR" and "nested deeper than 32 levels" in body["message"]


def test_json_nested_past_the_interpreters_recursion_limit_is_a_400(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post("/api/sessions", nested(200_000), content_type="application/json")
    assert response.status_code == 400
    assert "nested deeper" in response.json()["message"]


def test_json_nested_within_the_limit_reaches_the_view(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post("/api/sessions", nested(20), content_type="application/json")
    assert response.status_code == 201


@pytest.mark.parametrize("push_name", ["nul\u0000name", "lone\ud800surrogate"])
def test_a_nul_or_lone_surrogate_in_the_sandbox_inbound_push_name_is_a_400(
    keyed_client, operator_key, push_name
) -> None:
    body = json.dumps({"event": "message", "from": "5511999990000", "text": "hi", "pushName": push_name})
    url = f"/api/sandbox/sessions/{uuid.uuid4()}/inbound"
    response = keyed_client(operator_key).post(url, body, content_type="application/json")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "VALIDATION_ERROR" and "body.pushName" in body["message"]


def test_a_nul_in_a_field_name_is_a_400(keyed_client, admin_key) -> None:
    body = json.dumps({"name": "ok", "x\u0000": 1})
    response = keyed_client(admin_key).post("/api/sessions", body, content_type="application/json")
    assert response.status_code == 400


def test_a_nul_in_a_query_value_is_a_400_in_the_gateway_shape(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).get("/gateway/webhooks?sessionId=a%00b")
    assert response.status_code == 400
    assert response.json() == {"error": "Request body invalid"}


@pytest.mark.parametrize("path", ["/api/sessions", "/api/messages?sessionId=x&"])
def test_a_page_beyond_the_database_range_is_a_400(keyed_client, admin_key, path) -> None:
    separator = "&" if "?" in path else "?"
    response = keyed_client(admin_key).get(f"{path.rstrip('&')}{separator}page=99999999999999999999")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "VALIDATION_ERROR" and "page" in body["message"]


@pytest.mark.parametrize("query", ["page=", "limit="])
def test_an_empty_page_or_limit_is_a_400_not_the_default(keyed_client, admin_key, query) -> None:
    response = keyed_client(admin_key).get(f"/api/sessions?{query}")
    assert response.status_code == 400
    assert query.rstrip("=") in response.json()["message"]


def test_an_empty_enum_query_value_is_a_400_not_the_default(keyed_client, admin_key) -> None:
    client = keyed_client(admin_key)
    session_id = client.post("/api/sessions", {"name": "shop"}, format="json").json()["id"]
    response = client.get(f"/api/sessions/{session_id}/qrcode?format=")
    assert response.status_code == 400 and "format" in response.json()["message"]


def test_a_number_for_a_string_field_is_a_400(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post("/api/sessions", {"name": 0}, format="json")
    assert response.status_code == 400
    assert response.json()["details"] == ["name: Not a valid string."]


def test_numbers_in_a_list_of_strings_are_a_400(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post(
        "/api/keys", {"role": "viewer", "allowed_ips": [127001]}, format="json"
    )
    assert response.status_code == 400 and "allowed_ips" in response.json()["message"]


@pytest.mark.parametrize(
    "expires_at", ["1245-01-01T00:00:00", "2020-01-01T00:00:00Z", "9999-12-31T00:00:00Z"]
)
def test_a_key_expiry_in_the_past_or_far_future_is_a_400(keyed_client, admin_key, expires_at) -> None:
    response = keyed_client(admin_key).post(
        "/api/keys", {"role": "viewer", "expires_at": expires_at}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["details"][0].startswith("expires_at: must be in the future")
    assert ApiKey.objects.count() == 1


def test_a_key_expiry_next_year_is_accepted(keyed_client, admin_key) -> None:
    next_year = (timezone.now() + timedelta(days=365)).isoformat()
    response = keyed_client(admin_key).post(
        "/api/keys", {"role": "viewer", "expires_at": next_year}, format="json"
    )
    assert response.status_code == 201


def test_a_bonds_key_holding_a_nul_is_unauthorized_not_a_crash(api_client) -> None:
    response = api_client.get("/bonds/api/?key=ponte_%00%00%00%00%00%00%00%00_secret")
    assert response.status_code == 200
    assert response.json()["response"]["status"] == "unauthorized"


def test_a_nul_in_the_path_is_a_400_in_the_instance_shape(api_client) -> None:
    response = api_client.get("/instances/abc%00def/instance")
    assert response.status_code == 400
    assert response.json()["status"] == 400 and response.json()["error"] == "BAD_REQUEST"


def test_a_content_length_that_is_no_number_is_a_400(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post(
        "/api/sessions", '{"name": "x"}', content_type="application/json", CONTENT_LENGTH="lots"
    )
    assert response.status_code == 400
    assert "Content-Length" in response.json()["message"]
