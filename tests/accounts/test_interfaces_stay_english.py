"""The machine interfaces never change with Accept-Language (core/locale.py): an API client's error
codes and messages are the same bytes whatever language its HTTP stack asks for, and URLs carry no
language prefix."""

from __future__ import annotations

import pytest

PORTUGUESE = "pt-BR,pt;q=0.9"
# Requests whose answers include text Django or DRF would translate if the language were active
# ("This field is required.", "A valid integer is required.") beside Ponte's own messages.
CALLS = [
    ("post", "/api/sessions", {}),
    ("get", "/api/sessions?limit=abc", None),
    ("post", "/api/sessions", "{not json"),
    ("get", "/api/nothing-here", None),
    ("post", "/gateway/webhooks", {"url": 3}),
    ("get", "/gateway/nothing-here", None),
    ("get", "/bonds/api/?key=ponte_nope_nope", None),
    ("get", "/instances/no-such-instance/nothing", None),
]


def _call(client, method: str, path: str, body, language: str | None):
    headers = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    if isinstance(body, str):
        return getattr(client, method)(path, body, content_type="application/json", **headers)
    if body is not None:
        return getattr(client, method)(path, body, format="json", **headers)
    return getattr(client, method)(path, **headers)


@pytest.mark.parametrize(("method", "path", "body"), CALLS)
def test_an_interface_error_asked_in_portuguese_is_byte_identical_to_english(
    keyed_client, admin_key, method, path, body
) -> None:
    client = keyed_client(admin_key)
    english = _call(client, method, path, body, "en")
    portuguese = _call(client, method, path, body, PORTUGUESE)
    unasked = _call(client, method, path, body, None)
    assert english.status_code >= 400 or b"error" in english.content or b"status" in english.content
    assert portuguese.status_code == english.status_code == unasked.status_code
    assert portuguese.content == english.content == unasked.content
    for reply in (english, portuguese):
        assert "Content-Language" not in reply
        assert "Accept-Language" not in reply.get("Vary", "")


def test_drf_validation_messages_stay_english_for_a_portuguese_client(keyed_client, admin_key) -> None:
    reply = keyed_client(admin_key).post("/api/sessions", {}, format="json", HTTP_ACCEPT_LANGUAGE=PORTUGUESE)
    assert reply.status_code == 400
    assert reply.json()["error"] == "VALIDATION_ERROR"
    assert reply.json()["message"] == "name: This field is required."


def test_a_language_cookie_does_not_change_the_api_either(keyed_client, admin_key) -> None:
    client = keyed_client(admin_key)
    english = client.get("/api/sessions?limit=abc").content
    client.cookies["django_language"] = "pt-br"
    assert client.get("/api/sessions?limit=abc").content == english


def test_urls_carry_no_language_prefix(client, default_plans) -> None:
    assert client.get("/account/login/", HTTP_ACCEPT_LANGUAGE=PORTUGUESE).status_code == 200
    assert client.get("/", HTTP_ACCEPT_LANGUAGE=PORTUGUESE).status_code == 200
    for prefixed in ("/pt-br/account/login/", "/en/account/login/", "/pt-br/"):
        assert client.get(prefixed, HTTP_ACCEPT_LANGUAGE=PORTUGUESE).status_code == 404
