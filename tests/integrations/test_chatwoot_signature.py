"""Signed Chatwoot webhooks: when Chatwoot returns a webhook secret (4.13+), it is stored encrypted and
every webhook must carry a valid `X-Chatwoot-Signature`; without one known, the path token suffices."""

from __future__ import annotations

import json
import logging
import time

import pytest
from django.db import connection

from integrations.chatwoot.signature import signature_of
from tests.integrations.conftest import CHATWOOT_WEBHOOK_SECRET as SECRET

pytestmark = pytest.mark.django_db


def _post(api_client, integration, payload, headers=None):
    return api_client.generic(
        "POST",
        f"/integrations/chatwoot/{integration.webhook_token}",
        json.dumps(payload),
        content_type="application/json",
        headers=headers or {},
    )


def _signed(body: str, secret: str = SECRET) -> dict[str, str]:
    timestamp = str(int(time.time()))
    return {
        "X-Chatwoot-Signature": signature_of(secret, timestamp, body.encode()),
        "X-Chatwoot-Timestamp": timestamp,
        "X-Chatwoot-Delivery": "d-1",
    }


def test_the_secret_chatwoot_returns_is_stored_encrypted(signed_integration):
    assert signed_integration.webhook_secret == SECRET
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT webhook_secret FROM integrations_chatwootintegration WHERE id = %s",
            [signed_integration.pk],
        )
        (stored,) = cursor.fetchone()
    assert stored and SECRET not in stored


def test_a_signed_webhook_is_accepted(api_client, signed_integration, chatwoot):
    payload = {"event": "conversation_updated", "id": 7001, "content": "Assinada"}
    body = json.dumps(payload)
    response = _post(api_client, signed_integration, payload, _signed(body))
    assert response.status_code == 200, response.content
    assert response.json()["result"] in {"queued", "ignored"}


def test_unsigned_and_badly_signed_webhooks_are_refused_and_logged(
    api_client, signed_integration, chatwoot, caplog
):
    payload = {"event": "conversation_updated", "id": 7001, "content": "Forjada"}
    body = json.dumps(payload)
    with caplog.at_level(logging.WARNING, logger="integrations.chatwoot.api"):
        unsigned = _post(api_client, signed_integration, payload)
        wrong_secret = _post(api_client, signed_integration, payload, _signed(body, "another"))
        tampered = _post(api_client, signed_integration, {**payload, "content": "Outra"}, _signed(body))
    assert [r.status_code for r in (unsigned, wrong_secret, tampered)] == [401, 401, 401]
    assert "unsigned" in caplog.text and "badly signed" in caplog.text


def test_without_a_secret_the_path_token_stays_the_credential(api_client, integration, chatwoot):
    assert integration.webhook_secret == ""
    response = _post(
        api_client, integration, {"event": "conversation_updated", "id": 7001, "content": "Sem assinatura"}
    )
    assert response.status_code == 200, response.content
