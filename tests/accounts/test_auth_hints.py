"""A key sent in the other interface's header gets an answer naming the right header."""

from __future__ import annotations

from accounts.authentication import BEARER_KEY_HINT, HEADER_KEY_HINT


def test_bearer_key_on_the_messaging_api_names_the_x_api_key_header(client, admin_key) -> None:
    reply = client.get("/api/me", HTTP_AUTHORIZATION=f"Bearer {admin_key}")
    assert reply.status_code == 401
    body = reply.json()
    assert body["error"] == "Unauthorized" and "X-API-Key" in body["message"]
    assert reply["X-Ponte-Auth-Hint"] == HEADER_KEY_HINT


def test_bearer_key_on_the_gateway_names_the_x_api_key_header(client, admin_key) -> None:
    reply = client.get("/gateway/sessions", HTTP_AUTHORIZATION=f"Bearer {admin_key}")
    assert reply.status_code == 401
    assert reply.json() == {"error": "Unauthorized", "hint": HEADER_KEY_HINT}


def test_a_call_without_any_key_gets_the_plain_401(client, db) -> None:
    reply = client.get("/api/me")
    assert reply.status_code == 401 and "X-Ponte-Auth-Hint" not in reply
    assert reply.json()["message"].startswith("A valid API key is required")


def test_x_api_key_on_bonds_names_the_bearer_header(client, admin_key) -> None:
    reply = client.get("/bonds/api/", HTTP_X_API_KEY=admin_key)
    body = reply.json()
    assert body["response"]["status"] == "preview"
    assert body["response"]["description"].startswith(BEARER_KEY_HINT)
    assert reply["X-Ponte-Auth-Hint"] == BEARER_KEY_HINT
    csv = client.get("/bonds/api/?format=csv", HTTP_X_API_KEY=admin_key)
    assert csv["X-Ponte-Auth-Hint"] == BEARER_KEY_HINT and csv["X-Ponte-Status"] == "preview"


def test_bonds_with_a_bearer_key_carries_no_hint(client, admin_key) -> None:
    reply = client.get("/bonds/api/", HTTP_AUTHORIZATION=f"Bearer {admin_key}")
    assert "X-Ponte-Auth-Hint" not in reply


def test_the_hinted_preview_and_the_plain_one_are_cached_apart(client, admin_key) -> None:
    # The hint is written into the description when the reply is rendered, so each is its own cached reply.
    hinted = client.get("/bonds/api/", HTTP_X_API_KEY=admin_key).json()
    plain = client.get("/bonds/api/").json()
    assert hinted["response"]["description"] == f"{BEARER_KEY_HINT} {plain['response']['description']}"
    assert client.get("/bonds/api/", HTTP_X_API_KEY=admin_key).json() == hinted
    assert client.get("/bonds/api/").json() == plain
