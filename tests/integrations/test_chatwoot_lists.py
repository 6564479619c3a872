"""Lists, list responses and forwards in the Chatwoot mirror: mirrored as text (Chatwoot has no lists),
a forwarded message with a "Forwarded" line above its content."""

from __future__ import annotations

import pytest

from tests.integrations.support import CUSTOMER, drain_all, inbound

pytestmark = pytest.mark.django_db


def _contents(chatwoot) -> list[str]:
    return [m["content"] for m in chatwoot.messages.values()]


def test_a_sent_list_and_the_customers_choice_are_mirrored_as_text(admin_client, integration, chatwoot):
    inbound(admin_client, integration.session, text="oi")  # opens the conversation
    drain_all(integration)
    body = {
        "sessionId": str(integration.session_id),
        "to": CUSTOMER,
        "text": "Escolha",
        "buttonText": "Ver menu",
        "sections": [{"title": "Bebidas", "rows": [{"rowId": "b1", "title": "Suco"}]}],
    }
    assert admin_client.post("/api/messages/list", body, format="json").status_code == 200
    drain_all(integration)
    choice = {"rowId": "b1", "title": "Suco", "description": "Laranja"}
    inbound(admin_client, integration.session, type="list_response", listResponse=choice)
    drain_all(integration)
    contents = _contents(chatwoot)
    assert "Escolha\n[Ver menu]\n*Bebidas*\n• Suco (b1)" in contents
    assert "☑️ Suco — Laranja" in contents


def test_a_forwarded_message_is_mirrored_with_a_forwarded_line(admin_client, integration, chatwoot):
    inbound(admin_client, integration.session, text="promoção", forwarded=True)
    drain_all(integration)
    assert _contents(chatwoot) == ["↪️ Forwarded\npromoção"]
