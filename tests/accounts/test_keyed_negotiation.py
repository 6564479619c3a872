"""Keyed views remember content negotiation per Accept header (accounts/api_bases.py): the answer is the
one DRF gives, a header no renderer accepts is refused every time, and a `?format=` is still honoured."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_a_remembered_accept_header_renders_the_same_json_as_the_first_call(keyed_client, make_key) -> None:
    client = keyed_client(make_key("viewer"))
    first = client.get("/api/me", HTTP_ACCEPT="application/json; q=0.9, */*")
    second = client.get("/api/me", HTTP_ACCEPT="application/json; q=0.9, */*")

    assert first.status_code == second.status_code == 200
    assert first["Content-Type"] == second["Content-Type"] == "application/json"
    assert second.json()["account"] == first.json()["account"]
    assert second.json()["key"]["prefix"] == first.json()["key"]["prefix"]


def test_an_accept_header_no_renderer_offers_is_refused_on_every_call(keyed_client, make_key) -> None:
    client = keyed_client(make_key("viewer"))
    replies = [client.get("/api/me", HTTP_ACCEPT="text/csv") for _ in range(2)]

    assert [reply.status_code for reply in replies] == [400, 400]  # NotAcceptable in the API's error shape
    assert replies[0].json() == replies[1].json()
    assert client.get("/api/me", HTTP_ACCEPT="application/json").status_code == 200


def test_a_format_in_the_query_string_is_negotiated_not_remembered(keyed_client, make_key) -> None:
    client = keyed_client(make_key("viewer"))
    assert client.get("/api/me", HTTP_ACCEPT="application/json").status_code == 200

    refused = client.get("/api/me?format=csv", HTTP_ACCEPT="application/json")
    assert refused.status_code == 404 and refused.json()["statusCode"] == 404  # no renderer for that format
