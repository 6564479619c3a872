"""Helpers of the integrations tests."""

from __future__ import annotations

import base64
from typing import Any

from rest_framework.test import APIClient

from integrations.chatwoot import jobs
from integrations.chatwoot.models import ChatwootIntegration, MirrorJob
from messaging.models import Session

CUSTOMER = "5511988887777"


def inbound(client: APIClient, session: Session, **body: Any) -> None:
    """The customer does something on the sandbox connection (event stored and handed to the sinks)."""
    body.setdefault("event", "message")
    if body["event"] == "message":
        body.setdefault("from", CUSTOMER)
    response = client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")
    assert response.status_code in (200, 201, 202), response.json()


def media(content: bytes, mime: str, name: str = "") -> dict[str, str]:
    return {
        "base64": base64.b64encode(content).decode(),
        "mimeType": mime,
        **({"fileName": name} if name else {}),
    }


def drain_all(integration: ChatwootIntegration, *, rounds: int = 10) -> None:
    """Run the mirror's jobs in this process, as the worker's task does (chat by chat, in order)."""
    for _ in range(rounds):
        chats = set(
            MirrorJob.objects.filter(
                integration=integration, status__in=[MirrorJob.Status.PENDING, MirrorJob.Status.FAILED]
            ).values_list("chat", flat=True)
        )
        if not chats:
            return
        for chat in chats:
            jobs.QUEUE.drain((integration.pk, chat))


def receive(client: APIClient, integration: ChatwootIntegration, payload: dict[str, Any]) -> str:
    """Chatwoot POSTs a webhook to the integration's receiving URL."""
    response = client.post(f"/integrations/chatwoot/{integration.webhook_token}", payload, format="json")
    assert response.status_code == 200, response.content
    return response.json()["result"]
