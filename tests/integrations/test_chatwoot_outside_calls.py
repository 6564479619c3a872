"""The mirror's jobs call the engine and Chatwoot in no transaction (net.guard, on in the whole suite,
refuses any outbound request started inside one): an agent's reply on an official account goes to the
Graph API on production's path (the quota committed first, the message recorded after the answer), and
an agent's deletion commits its unlinking before the engine is asked."""

from __future__ import annotations

import time

import pytest

from integrations.chatwoot.models import ChatwootIntegration, MessageLink, MirrorJob
from messaging.engines.events import MessageEvent
from messaging.models import Message, Session
from messaging.services.events import engine_event_receive
from tests.integrations import engines
from tests.integrations.conftest import chatwoot_body, token_of
from tests.integrations.support import drain_all, inbound, receive
from tests.messaging.channel_webhooks import CUSTOMER as CLOUD_CUSTOMER

pytestmark = pytest.mark.django_db
CLOUD_JID = f"{CLOUD_CUSTOMER}@s.whatsapp.net"


@pytest.fixture
def cloud_integration(admin_client, official_session, graph, chatwoot) -> ChatwootIntegration:
    session = official_session("whatsapp_cloud")
    reply = admin_client.put(
        f"/api/sessions/{session.pk}/integrations/chatwoot", chatwoot_body(chatwoot), format="json"
    )
    assert reply.status_code == 200, reply.json()
    integration = ChatwootIntegration.objects.get(session=session)
    integration.webhook_token = token_of(reply.json())
    return integration


@pytest.fixture
def conversation_id(admin_client, integration, chatwoot) -> int:
    """On a sandbox session, the customer wrote first: the conversation exists in Chatwoot."""
    inbound(admin_client, integration.session, text="Oi, tudo bem?", messageId="3EB0CUSTOMER00001")
    drain_all(integration)
    (cid,) = chatwoot.conversations
    return cid


def _customer_writes(integration: ChatwootIntegration, chatwoot) -> int:
    """The customer's message as the channel reports it (the event the inbound webhook turns into), and
    its conversation in Chatwoot."""
    event = MessageEvent(
        id="wamid.IN1", chat_jid=CLOUD_JID, sender=CLOUD_JID, text="Oi", timestamp=int(time.time())
    )
    engine_event_receive(str(integration.session_id), event)
    drain_all(integration)
    (cid,) = chatwoot.conversations
    return cid


def test_an_agent_reply_on_an_official_account_reaches_the_graph_api_in_no_transaction(
    api_client, cloud_integration, chatwoot, graph
):
    cid = _customer_writes(cloud_integration, chatwoot)
    payload = chatwoot.agent_message(cid, "Bom dia!")
    assert receive(api_client, cloud_integration, payload) == "queued"
    drain_all(cloud_integration)
    (sent,) = [c for c in graph.sends() if c.body.get("type") == "text"]
    assert sent.body["text"]["body"] == "Bom dia!"
    (message,) = Message.objects.filter(session=cloud_integration.session, from_me=True)
    assert MessageLink.objects.get(message_id=message.message_id).chatwoot_id == payload["id"]
    # Replying marked the conversation read on the channel first: a Graph API call of its own.
    assert [c.body["message_id"] for c in graph.calls if (c.body or {}).get("status") == "read"] == [
        "wamid.IN1"
    ]
    assert not MirrorJob.objects.exclude(status=MirrorJob.Status.DONE).exists()


def test_agent_typing_on_an_official_account_marks_read_in_no_transaction(
    api_client, cloud_integration, chatwoot, graph
):
    cid = _customer_writes(cloud_integration, chatwoot)
    receive(api_client, cloud_integration, chatwoot.agent_typing(cid, True))
    drain_all(cloud_integration)
    (call,) = [c for c in graph.calls if (c.body or {}).get("status") == "read"]
    assert call.body["typing_indicator"] == {"type": "text"}
    assert Message.objects.get(message_id="wamid.IN1").status == Message.Status.READ


def test_a_deletion_the_engine_cannot_carry_now_keeps_its_link_for_the_retry(
    api_client, integration, chatwoot, conversation_id
):
    payload = chatwoot.agent_message(conversation_id, "enviada por engano")
    receive(api_client, integration, payload)
    drain_all(integration)
    (sent,) = Message.objects.filter(session=integration.session, from_me=True)
    Session.objects.filter(pk=integration.session_id).update(engine=engines.AWAY_ON_DELETE)
    receive(api_client, integration, chatwoot.agent_deletes(payload["id"]))
    drain_all(integration, rounds=1)
    job = MirrorJob.objects.get(kind="agent_delete")
    assert job.status == MirrorJob.Status.FAILED and job.attempt_count == 1
    assert MessageLink.objects.filter(message_id=sent.message_id, chatwoot_id=payload["id"]).exists()
    sent.refresh_from_db()
    assert sent.status != Message.Status.DELETED
