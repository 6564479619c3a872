"""Fixtures of the integrations tests: a Chatwoot stand-in, loopback allowed, a paired sandbox session
with its Chatwoot integration configured through the REST API, and real Celery workers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rest_framework.test import APIClient

from integrations.chatwoot.models import ChatwootIntegration
from messaging.models import Session
from tests.integrations.chatwoot_standin import INBOX_IDENTIFIER, TOKEN, ChatwootStandIn
from tests.messaging.pairing import pair_sandbox_session


@pytest.fixture
def chatwoot(allow_loopback) -> Iterator[ChatwootStandIn]:
    standin = ChatwootStandIn().start()
    yield standin
    standin.stop()


@pytest.fixture
def admin_client(admin_key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=admin_key)
    return client


@pytest.fixture
def paired_session(admin_client) -> Session:
    """A sandbox session paired through the API (its phone 5511999990001)."""
    return pair_sandbox_session(admin_client)


def chatwoot_body(standin: ChatwootStandIn, **extra) -> dict:
    return {"baseUrl": standin.url, "accessToken": TOKEN, "inboxIdentifier": INBOX_IDENTIFIER, **extra}


def token_of(reply: dict) -> str:
    """The receiving token, from the `webhookUrl` of the reply that issued it (stored only as a digest)."""
    return reply["webhookUrl"].rsplit("/", 1)[-1]


@pytest.fixture
def integration(admin_client, paired_session, chatwoot) -> ChatwootIntegration:
    response = admin_client.put(
        f"/api/sessions/{paired_session.pk}/integrations/chatwoot", chatwoot_body(chatwoot), format="json"
    )
    assert response.status_code == 200, response.json()
    integration = ChatwootIntegration.objects.get(session=paired_session)
    integration.webhook_token = token_of(response.json())  # in clear only in the configuration's reply
    return integration


# The secret a Chatwoot 4.13+ stand-in returns for its webhook, when a test asks it to sign.
CHATWOOT_WEBHOOK_SECRET = "whsec-4f1c9a2e7b"


@pytest.fixture
def signed_integration(admin_client, paired_session, chatwoot) -> ChatwootIntegration:
    """An integration whose Chatwoot returned a webhook secret: every webhook must then be signed."""
    chatwoot.webhook_secret = CHATWOOT_WEBHOOK_SECRET
    response = admin_client.put(
        f"/api/sessions/{paired_session.pk}/integrations/chatwoot", chatwoot_body(chatwoot), format="json"
    )
    assert response.status_code == 200, response.json()
    assert CHATWOOT_WEBHOOK_SECRET not in response.content.decode()
    integration = ChatwootIntegration.objects.get(session=paired_session)
    integration.webhook_token = token_of(response.json())
    return integration


# The Graph API stand-in and official sessions of the messaging tests (for the 24-hour window).
from tests.messaging.conftest import graph, official_session  # noqa: E402, F401

# Real Celery workers on the test database, as the webhook tests start them.
from tests.webhooks.conftest import start_worker  # noqa: E402, F401
