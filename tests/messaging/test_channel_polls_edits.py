"""Official channels have no polls and no edits in their send APIs: 400 OPERATION_NOT_SUPPORTED naming
the channel, and nothing is posted to the Graph API."""

from __future__ import annotations

import pytest

from messaging.models import Message
from tests.messaging.channel_webhooks import CUSTOMER

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "provider, name", [("whatsapp_cloud", "WhatsApp"), ("messenger", "Messenger"), ("instagram", "Instagram")]
)
def test_polls_and_edits_on_official_channels_answer_400_operation_not_supported(
    admin_client, graph, official_session, provider, name
):
    session = official_session(provider)
    sid, chat = str(session.pk), f"{CUSTOMER}@s.whatsapp.net"
    Message.objects.create(session=session, message_id="OUT1", chat=chat, from_me=True, type="text")
    poll = {"sessionId": sid, "to": CUSTOMER, "name": "Q?", "options": ["a", "b"]}
    edit = {"sessionId": sid, "to": CUSTOMER, "messageId": "OUT1", "text": "new"}
    for path, body in (("poll", poll), ("edit", edit)):
        reply = admin_client.post(f"/api/messages/{path}", body, format="json")
        assert reply.status_code == 400, reply.json()
        assert reply.json()["error"] == "OPERATION_NOT_SUPPORTED"
        assert name in reply.json()["message"]
    assert graph.sends() == []
    assert not Message.objects.filter(session=session, type="poll").exists()
