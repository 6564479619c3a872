"""Custom headers on create and patch: validated, sent with every delivery, values only to admin keys."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Webhook
from webhooks.services import emit

pytestmark = pytest.mark.django_db

HEADERS = {"Authorization": "Bearer customer-token", "X-Tenant": "acme"}


@pytest.fixture(autouse=True)
def _loopback(allow_loopback):
    pass


def _create(client, session, headers):
    body = {"sessionId": str(session.id), "url": "https://93.184.215.14/hook", "events": ["message"]}
    return client.post("/gateway/webhooks", {**body, "headers": headers}, format="json")


def test_headers_are_sent_with_every_delivery_and_cannot_override_ponte_s(
    keyed_client, operator_key, session, receiver
):
    register(keyed_client(operator_key), session, receiver.url, headers=HEADERS, secret="s")
    emit(session_id=session.id, name="message", data={"id": "M1"})
    send_due()
    (request,) = receiver.received
    assert request.headers["authorization"] == "Bearer customer-token"
    assert request.headers["x-tenant"] == "acme"
    assert request.headers["content-type"] == "application/json"


def test_admin_keys_see_the_values_other_roles_only_the_names(
    keyed_client, admin_key, operator_key, viewer_key, session
):
    created = _create(keyed_client(admin_key), session, HEADERS).json()
    assert created["headers"] == HEADERS and created["headerNames"] == ["Authorization", "X-Tenant"]
    for key in (operator_key, viewer_key):
        client = keyed_client(key)
        for record in (
            client.get(f"/gateway/webhooks/{created['id']}").json(),
            client.get("/gateway/webhooks").json()["data"][0],
        ):
            assert "headers" not in record and record["headerNames"] == ["Authorization", "X-Tenant"]
            assert "customer-token" not in str(record)


def test_a_patch_replaces_the_headers_and_an_empty_object_removes_them(keyed_client, admin_key, session):
    client = keyed_client(admin_key)
    created = _create(client, session, HEADERS).json()
    assert patch(client, created["id"], headers={"X-Other": "1"}).json()["headers"] == {"X-Other": "1"}
    assert patch(client, created["id"], headers={}).json()["headerNames"] == []
    assert Webhook.objects.get(pk=created["id"]).headers is None


@pytest.mark.parametrize(
    "name",
    [
        "Host",
        "content-length",
        "Content-Type",
        "Transfer-Encoding",
        "CONNECTION",
        "Webhook-Id",
        "webhook-signature",
        "X-Webhook-Signature",
        "x-webhook-anything",
        "X-Ponte-Status",
    ],
)
def test_reserved_names_are_refused_naming_them(keyed_client, admin_key, session, name):
    reply = _create(keyed_client(admin_key), session, {name: "x", "X-Fine": "y"})
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert error.startswith("headers: reserved header names refused: ") and name in error
    assert not Webhook.objects.exists()


@pytest.mark.parametrize(
    ("headers", "error"),
    [
        ({f"X-H{n}": "v" for n in range(11)}, "headers: at most 10 headers"),
        ({"X-Long": "v" * 1001}, "headers.X-Long: at most 1000 characters"),
        ({"Bad Name": "v"}, "headers: 'Bad Name' is not a valid header name"),
        ({"X-Split": "a\r\nInjected: yes"}, "headers.X-Split: only printable ASCII"),
        # Python's `$` matches before a final line feed: the whole string must match, to its very end.
        ({"X-A": "abc\n"}, "headers.X-A: only printable ASCII"),
        ({"X-A": "abc\r"}, "headers.X-A: only printable ASCII"),
        ({"X-A\n": "abc"}, "is not a valid header name"),
        ({"X-A": "a\tb"}, "headers.X-A: only printable ASCII"),
        ({"X-A": "a\x1bb"}, "headers.X-A: only printable ASCII"),
        ({"X-A": "a\x7fb"}, "headers.X-A: only printable ASCII"),
        ({"X-A": "caf\u00e9"}, "headers.X-A: only printable ASCII"),
        ({"X-A": "1", "x-a": "2"}, "is given twice"),
        (["X-A"], "headers: "),
    ],
)
def test_invalid_headers_are_refused_naming_the_field(keyed_client, admin_key, session, headers, error):
    reply = _create(keyed_client(admin_key), session, headers)
    assert reply.status_code == 400
    assert error in reply.json()["error"]


def test_ten_headers_of_a_thousand_characters_are_accepted(keyed_client, admin_key, session):
    headers = {f"X-H{n}": "v" * 1000 for n in range(10)}
    assert _create(keyed_client(admin_key), session, headers).status_code == 200


@pytest.mark.parametrize("headers", [{"Host": "evil"}, {"X-A": "abc\n"}, {"X-A\n": "abc"}])
def test_a_patch_with_invalid_headers_keeps_the_old_ones(keyed_client, admin_key, session, headers):
    client = keyed_client(admin_key)
    created = _create(client, session, HEADERS).json()
    reply = patch(client, created["id"], headers=headers)
    assert reply.status_code == 400 and reply.json()["error"].startswith("headers")
    assert Webhook.objects.get(pk=created["id"]).headers == HEADERS


def test_header_values_are_encrypted_at_rest(keyed_client, admin_key, session):
    created = _create(keyed_client(admin_key), session, HEADERS).json()
    with connection.cursor() as cursor:
        cursor.execute("SELECT headers FROM webhooks_webhook WHERE id = %s", [created["id"]])
        (stored,) = cursor.fetchone()
    assert "customer-token" not in stored and "X-Tenant" not in stored
