"""POST /gateway/webhooks/{id}/secret/rotate: during the overlap a receiver verifies with either secret."""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta

import pytest
import standardwebhooks
from django.db import connection
from django.utils import timezone

from tests.webhooks.sender_depth import register, send_due
from webhooks.models import Webhook
from webhooks.services import emit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _loopback(allow_loopback):
    pass


def _rotate(client, webhook_id: str, **body):
    return client.post(f"/gateway/webhooks/{webhook_id}/secret/rotate", body, format="json")


def _one_delivery(session, receiver):
    emit(session_id=session.id, name="message", data={"id": f"M{len(receiver.received)}"})
    send_due()
    return receiver.received[-1]


def test_during_the_overlap_both_secrets_verify_and_the_hex_signature_uses_the_new_one(
    keyed_client, operator_key, session, receiver
):
    client = keyed_client(operator_key)
    hook = register(client, session, receiver.url, secret="old-secret")
    reply = _rotate(client, hook["id"], overlapSeconds=3600)
    assert reply.status_code == 200, reply.content
    new = reply.json()["secret"]
    assert new.startswith("whsec_") and reply["Cache-Control"] == "no-store"
    assert reply.json()["webhook"]["previousSecretExpiresAt"] is not None
    assert "secret" not in client.get(f"/gateway/webhooks/{hook['id']}").json()

    request = _one_delivery(session, receiver)
    signatures = request.headers["webhook-signature"].split(" ")
    assert len(signatures) == 2 and all(s.startswith("v1,") for s in signatures)
    standardwebhooks.Webhook(new).verify(request.body, request.headers)  # new first
    standardwebhooks.Webhook(b"old-secret").verify(request.body, request.headers)
    expected = hmac.new(new.encode(), request.body, hashlib.sha256).hexdigest()
    assert request.headers["x-webhook-signature"] == expected
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(b"another").verify(request.body, request.headers)


def test_after_the_overlap_only_the_new_secret_signs(keyed_client, admin_key, session, receiver):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, secret="old-secret")
    new = _rotate(client, hook["id"], secret="brand-new-secret").json()["secret"]
    assert new == "brand-new-secret"
    Webhook.objects.filter(pk=hook["id"]).update(previous_secret_expires_at=timezone.now() - timedelta(1))
    request = _one_delivery(session, receiver)
    assert " " not in request.headers["webhook-signature"]
    standardwebhooks.Webhook(b"brand-new-secret").verify(request.body, request.headers)
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(b"old-secret").verify(request.body, request.headers)
    assert client.get(f"/gateway/webhooks/{hook['id']}").json()["previousSecretExpiresAt"] is None


def test_an_overlap_of_zero_replaces_the_secret_at_once(keyed_client, admin_key, session, receiver):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, secret="old-secret")
    new = _rotate(client, hook["id"], overlapSeconds=0).json()["secret"]
    request = _one_delivery(session, receiver)
    assert " " not in request.headers["webhook-signature"]
    standardwebhooks.Webhook(new).verify(request.body, request.headers)


def test_the_default_overlap_is_a_day(keyed_client, admin_key, session, receiver):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, secret="old-secret")
    before = timezone.now()
    _rotate(client, hook["id"])
    expires = Webhook.objects.get(pk=hook["id"]).previous_secret_expires_at
    assert timedelta(hours=23, minutes=59) < expires - before <= timedelta(days=1, seconds=5)


@pytest.mark.parametrize("overlap", [-1, 604801, "soon", 1.5])
def test_an_overlap_outside_zero_to_a_week_is_refused_naming_the_field(
    keyed_client, admin_key, session, receiver, overlap
):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, secret="old-secret")
    reply = _rotate(client, hook["id"], overlapSeconds=overlap)
    assert reply.status_code == 400
    assert reply.json()["error"].startswith("overlapSeconds: ")
    assert Webhook.objects.get(pk=hook["id"]).secret == "old-secret"


def test_a_viewer_cannot_rotate(keyed_client, admin_key, viewer_key, session, receiver):
    hook = register(keyed_client(admin_key), session, receiver.url, secret="old-secret")
    reply = _rotate(keyed_client(viewer_key), hook["id"])
    assert (reply.status_code, reply.json()) == (403, {"error": "Forbidden"})


def test_both_secrets_are_encrypted_at_rest(keyed_client, admin_key, session, receiver):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, secret="old-secret-plain")
    _rotate(client, hook["id"], secret="new-secret-plain")
    with connection.cursor() as cursor:
        cursor.execute("SELECT secret, previous_secret FROM webhooks_webhook WHERE id = %s", [hook["id"]])
        stored = cursor.fetchone()
    assert all(value and "plain" not in value for value in stored)
    webhook = Webhook.objects.get(pk=hook["id"])
    assert (webhook.secret, webhook.previous_secret) == ("new-secret-plain", "old-secret-plain")
