"""The receiving URL (`/integrations/chatwoot/<token>`) is a write credential: it is shown to admins only,
in full only in the reply that issues it (configuration, regeneration), stored as a digest; signed
webhooks must carry a fresh timestamp, so a captured one cannot be replayed."""

from __future__ import annotations

import json
import time
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiKey
from integrations.chatwoot.models import ChatwootIntegration
from integrations.chatwoot.signature import signature_of
from tests.integrations.conftest import chatwoot_body, token_of

pytestmark = pytest.mark.django_db

SECRET = "whsec-9b2e61d0aa"


def _keyed(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key)
    return client


def _url(integration: ChatwootIntegration) -> str:
    return f"/api/sessions/{integration.session_id}/integrations/chatwoot"


def _receive(client: APIClient, token: str, payload: dict, headers: dict | None = None):
    return client.generic(
        "POST",
        f"/integrations/chatwoot/{token}",
        json.dumps(payload),
        content_type="application/json",
        headers=headers or {},
    )


def _signed(body: str, timestamp: int, secret: str = SECRET) -> dict[str, str]:
    return {
        "X-Chatwoot-Signature": signature_of(secret, str(timestamp), body.encode()),
        "X-Chatwoot-Timestamp": str(timestamp),
    }


@pytest.mark.parametrize("role", [ApiKey.Role.VIEWER, ApiKey.Role.OPERATOR])
def test_a_viewer_or_operator_reads_the_settings_without_the_receiving_url(integration, make_key, role):
    reply = _keyed(make_key(role)).get(_url(integration))
    assert reply.status_code == 200, reply.json()
    data = reply.json()
    assert data["inboxId"] == integration.inbox_id
    assert "webhookUrl" not in data and "webhookTokenPrefix" not in data
    assert integration.webhook_token not in reply.content.decode()


def test_an_admin_reads_the_token_prefix_but_the_url_only_once(admin_client, integration):
    data = admin_client.get(_url(integration)).json()
    assert data["webhookUrl"] is None
    assert data["webhookTokenPrefix"] == integration.webhook_token[:8]
    assert integration.webhook_token not in json.dumps(data)


def test_the_token_is_stored_only_as_a_digest(integration):
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM integrations_chatwootintegration WHERE id = %s", [integration.pk])
        row = cursor.fetchone()
    assert integration.webhook_token not in " ".join(str(value) for value in row)
    assert integration.webhook_token[:8] in [str(value) for value in row]  # the visible prefix


def test_a_viewer_cannot_regenerate_the_url_and_an_admin_can(
    api_client, admin_client, integration, make_key, chatwoot
):
    old = integration.webhook_token
    regenerate = f"{_url(integration)}/webhook-token"
    assert _keyed(make_key(ApiKey.Role.VIEWER)).post(regenerate).status_code == 403
    assert _keyed(make_key(ApiKey.Role.OPERATOR)).post(regenerate).status_code == 403
    reply = admin_client.post(regenerate)
    assert reply.status_code == 200, reply.json()
    new = token_of(reply.json())
    assert new != old and reply.json()["webhookTokenPrefix"] == new[:8]
    assert chatwoot.inbox()["webhook_url"] == reply.json()["webhookUrl"]  # the inbox points at it
    assert _receive(api_client, old, {"event": "x"}).status_code == 404
    assert _receive(api_client, new, {"event": "x"}).status_code == 200
    assert admin_client.get(_url(integration)).json()["webhookUrl"] is None


def test_the_instance_key_regenerates_and_is_shown_the_url_once(api_client, integration, paired_session):
    base = f"/instances/{paired_session.instance_key}/chatwoot"
    assert api_client.get(base).json()["data"]["webhookUrl"] is None
    reply = api_client.post(f"{base}/webhook-token")
    assert reply.status_code == 200, reply.json()
    token = token_of(reply.json()["data"])
    assert _receive(api_client, token, {"event": "x"}).status_code == 200
    assert _receive(api_client, integration.webhook_token, {"event": "x"}).status_code == 404


def test_a_later_put_on_the_same_inbox_keeps_the_url(admin_client, api_client, integration):
    reply = admin_client.put(_url(integration), {"signMessages": True}, format="json")
    assert reply.status_code == 200 and reply.json()["webhookUrl"] is None
    assert _receive(api_client, integration.webhook_token, {"event": "x"}).status_code == 200


@pytest.mark.parametrize(
    "path", ["%00", "abc%00defghijklmnopqrstuvwxyz", "%ED%A0%80" * 8, "x" * 300, "é" * 20]
)
def test_an_odd_token_in_the_path_is_404_not_500(api_client, integration, path):
    response = api_client.post(f"/integrations/chatwoot/{path}", {"event": "x"}, format="json")
    assert response.status_code == 404


@pytest.fixture
def signed(admin_client, paired_session, chatwoot) -> ChatwootIntegration:
    chatwoot.webhook_secret = SECRET
    response = admin_client.put(
        f"/api/sessions/{paired_session.pk}/integrations/chatwoot", chatwoot_body(chatwoot), format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["signedWebhooks"] is True
    integration = ChatwootIntegration.objects.get(session=paired_session)
    integration.webhook_token = token_of(response.json())
    return integration


@pytest.mark.parametrize(
    ("age", "status"), [(0, 200), (-60, 200), (290, 200), (301, 401), (3600, 401), (-400, 401)]
)
def test_a_signed_webhook_must_carry_a_timestamp_within_five_minutes(api_client, signed, age, status):
    payload = {"event": "conversation_updated", "id": 7002}
    body = json.dumps(payload)
    headers = _signed(body, int(time.time()) - age)
    assert _receive(api_client, signed.webhook_token, payload, headers).status_code == status


@pytest.mark.parametrize("timestamp", ["", "soon", "1e9", "-1", "99999999999999999999", "\uff11\uff12\uff13"])
def test_a_signed_webhook_with_a_malformed_timestamp_is_refused(api_client, signed, timestamp):
    payload = {"event": "conversation_updated", "id": 7003}
    body = json.dumps(payload)
    headers = {"X-Chatwoot-Signature": signature_of(SECRET, timestamp, body.encode())}
    if timestamp:
        headers["X-Chatwoot-Timestamp"] = timestamp
    assert _receive(api_client, signed.webhook_token, payload, headers).status_code == 401


def test_a_replayed_signed_webhook_is_refused(api_client, signed):
    payload = {"event": "message_created", "id": 7004, "message_type": "outgoing", "content": "Oi"}
    body = json.dumps(payload)
    captured = _signed(body, int(time.time()) - 10 * 60)  # signed ten minutes ago, posted again now
    assert _receive(api_client, signed.webhook_token, payload, captured).status_code == 401


def test_the_admin_shows_the_prefix_and_regenerates_the_url_once(integration, chatwoot):
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("staff", "staff@example.com", "pw"))
    change = staff.get(f"/admin/integrations/chatwootintegration/{integration.pk}/change/")
    assert change.status_code == 200
    assert integration.webhook_token.encode() not in change.content
    assert integration.webhook_token[:8].encode() in change.content
    done = staff.post(
        "/admin/integrations/chatwootintegration/",
        {"action": "regenerate_webhook_token", "_selected_action": [integration.pk]},
        follow=True,
    )
    assert done.status_code == 200
    url = chatwoot.inbox()["webhook_url"]
    assert url.encode() in done.content and integration.webhook_token not in url


BEFORE = [("integrations", "0003_chatwoot_webhook_secret")]
LEGACY_TOKEN = "Legacy-token_from-before-digests-0123456789A"


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return MigrationExecutor(connection)


# Slow (tests/tiers.py): migrates the schema back and forth.
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_existing_tokens_become_digests_and_keep_working(account, api_client):
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        old = _migrate(BEFORE).loader.project_state(BEFORE).apps
        session = old.get_model("messaging", "Session").objects.create(
            id=uuid.uuid4(), account_id=account.pk, name="legacy", instance_key_prefix="legacyk1",
            instance_key_digest="0" * 64,
        )  # fmt: skip
        old.get_model("integrations", "ChatwootIntegration").objects.create(
            session_id=session.pk, base_url="https://chat.example.com", access_token="t",
            inbox_identifier="inbox", account_id=1, inbox_id=2, webhook_token=LEGACY_TOKEN,
        )  # fmt: skip
        _migrate(latest)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT webhook_token_prefix, webhook_token_digest FROM integrations_chatwootintegration"
            )
            prefix, digest = cursor.fetchone()
        assert prefix == LEGACY_TOKEN[:8] and LEGACY_TOKEN not in digest
        assert _receive(api_client, LEGACY_TOKEN, {"event": "x"}).status_code == 200

        _migrate(BEFORE)  # the reverse cannot give the old token back: a new one, in clear
        with connection.cursor() as cursor:
            cursor.execute("SELECT webhook_token FROM integrations_chatwootintegration")
            (token,) = cursor.fetchone()
        assert token and token != LEGACY_TOKEN
    finally:
        _migrate(latest)
