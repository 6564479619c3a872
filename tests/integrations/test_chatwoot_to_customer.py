"""Platform → customer: what an agent does in Chatwoot reaches the customer through the session (jobs
run in this process by the task's own code)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from integrations.chatwoot.models import ChatwootIntegration, MessageLink
from messaging.channels.models import ChannelConversation
from messaging.models import Message, Session
from tests.integrations import engines
from tests.integrations.conftest import chatwoot_body, token_of
from tests.integrations.support import CUSTOMER, drain_all, inbound, receive

pytestmark = pytest.mark.django_db
JID = f"{CUSTOMER}@s.whatsapp.net"


@pytest.fixture
def conversation_id(admin_client, integration, chatwoot) -> int:
    """The customer wrote first: the conversation exists in Chatwoot."""
    inbound(admin_client, integration.session, text="Oi, tudo bem?", messageId="3EB0CUSTOMER00001")
    drain_all(integration)
    (cid,) = chatwoot.conversations
    return cid


def _sent(session: Session) -> list[Message]:
    return list(Message.objects.filter(session=session, from_me=True).order_by("timestamp", "id"))


def test_an_agent_reply_reaches_the_customer_and_is_not_mirrored_back(
    api_client, integration, chatwoot, conversation_id
):
    payload = chatwoot.agent_message(conversation_id, "Bom dia! Como posso ajudar?")
    assert receive(api_client, integration, payload) == "queued"
    drain_all(integration)
    (message,) = _sent(integration.session)
    assert (message.chat, message.content["text"]) == (JID, "Bom dia! Como posso ajudar?")
    assert MessageLink.objects.get(message_id=message.message_id).chatwoot_id == payload["id"]
    # The engine's echo of the sent message is not posted into Chatwoot a second time.
    assert [m["content"] for m in chatwoot.messages.values()] == [
        "Oi, tudo bem?",
        "Bom dia! Como posso ajudar?",
    ]


def test_the_same_agent_message_delivered_by_two_webhooks_is_sent_once(
    api_client, integration, chatwoot, conversation_id
):
    payload = chatwoot.agent_message(conversation_id, "Só uma vez")
    assert receive(api_client, integration, payload) == "queued"
    assert receive(api_client, integration, payload) == "duplicate"
    drain_all(integration)
    assert [m.content["text"] for m in _sent(integration.session)] == ["Só uma vez"]


def test_private_notes_never_reach_the_customer(api_client, integration, chatwoot, conversation_id):
    payload = chatwoot.agent_message(conversation_id, "nota interna: cliente VIP", private=True)
    assert receive(api_client, integration, payload) == "ignored"
    drain_all(integration)
    assert _sent(integration.session) == []


def test_signed_messages_carry_the_agents_name(api_client, integration, chatwoot, conversation_id):
    integration.sign_messages = True
    integration.save()
    receive(api_client, integration, chatwoot.agent_message(conversation_id, "Pronto!", agent="Ana Souza"))
    drain_all(integration)
    assert _sent(integration.session)[0].content["text"] == "*Ana Souza:*\nPronto!"


def test_an_agent_reply_to_a_customer_message_quotes_it(api_client, integration, chatwoot, conversation_id):
    customer = MessageLink.objects.get(message_id="3EB0CUSTOMER00001")
    receive(
        api_client,
        integration,
        chatwoot.agent_message(conversation_id, "Sim!", in_reply_to=customer.chatwoot_id),
    )
    drain_all(integration)
    assert _sent(integration.session)[0].content["quoted"] == {"messageId": "3EB0CUSTOMER00001"}


def test_an_agent_attachment_is_sent_under_its_file_name(api_client, integration, chatwoot, conversation_id):
    pdf = b"%PDF-1.4 boleto"
    payload = chatwoot.agent_message(
        conversation_id, "Seu boleto", attachment=("boleto.pdf", pdf, "application/pdf")
    )
    receive(api_client, integration, payload)
    drain_all(integration)
    (message,) = _sent(integration.session)
    assert message.type == "document"
    assert message.content["fileName"] == "boleto.pdf" and message.content["caption"] == "Seu boleto"
    assert message.content["size"] == len(pdf)


def test_a_send_the_provider_refuses_is_marked_failed_with_a_private_note(
    api_client, integration, chatwoot, conversation_id
):
    Session.objects.filter(pk=integration.session_id).update(engine=engines.REFUSING)
    payload = chatwoot.agent_message(conversation_id, "Olá?")
    receive(api_client, integration, payload)
    drain_all(integration)
    assert chatwoot.messages[payload["id"]]["status"] == "failed"
    assert "131026" in chatwoot.messages[payload["id"]]["content_attributes"]["external_error"]
    (note,) = [m for m in chatwoot.messages.values() if m["private"]]
    assert note["conversation_id"] == conversation_id and "131026" in note["content"]


def test_agent_typing_shows_as_presence_and_echoes_are_ignored(
    api_client, integration, chatwoot, conversation_id
):
    Session.objects.filter(pk=integration.session_id).update(engine=engines.RECORDING)
    engines.PRESENCES.clear()
    assert receive(api_client, integration, chatwoot.agent_typing(conversation_id, True)) == "queued"
    assert receive(api_client, integration, chatwoot.agent_typing(conversation_id, False)) == "queued"
    # The contact's own typing (which Ponte pushed) comes back as an echo; private-note typing too.
    assert (
        receive(api_client, integration, chatwoot.agent_typing(conversation_id, True, by_contact=True))
        == "ignored"
    )
    assert (
        receive(api_client, integration, chatwoot.agent_typing(conversation_id, True, private=True))
        == "ignored"
    )
    drain_all(integration)
    assert engines.PRESENCES == [(JID, "composing"), (JID, "paused")]


def test_replying_from_the_panel_marks_the_conversation_read(
    api_client, integration, chatwoot, conversation_id
):
    Session.objects.filter(pk=integration.session_id).update(engine=engines.RECORDING)
    engines.READS.clear()
    receive(api_client, integration, chatwoot.agent_message(conversation_id, "Vi sua mensagem"))
    drain_all(integration)
    assert engines.READS == [(JID, ["3EB0CUSTOMER00001"])]


# --- Official accounts: the 24-hour window ---------------------------------------------------------


@pytest.fixture
def cloud_integration(admin_client, official_session, graph, chatwoot) -> ChatwootIntegration:
    from tests.messaging.test_channel_window import ORDER_BODY, _template

    session = official_session("whatsapp_cloud")
    graph.templates = [_template("order_shipped", ORDER_BODY)]
    assert admin_client.post(f"/api/sessions/{session.pk}/templates/sync").status_code == 200
    url = f"/api/sessions/{session.pk}/integrations/chatwoot"
    reply = admin_client.put(url, chatwoot_body(chatwoot), format="json")
    assert reply.status_code == 200
    integration = ChatwootIntegration.objects.get(session=session)
    integration.webhook_token = token_of(reply.json())
    return integration


def _official_conversation(admin_client, cloud_integration, chatwoot, graph) -> tuple[int, str]:
    from tests.messaging.channel_webhooks import CUSTOMER as CLOUD_CUSTOMER
    from tests.messaging.channel_webhooks import cloud_body, cloud_message, post_signed

    body = cloud_body(messages=[cloud_message("text", {"body": "Oi"}, ts=int(time.time()))])
    assert post_signed(admin_client, cloud_integration.session, body).status_code == 200
    drain_all(cloud_integration)
    (cid,) = chatwoot.conversations
    return cid, f"{CLOUD_CUSTOMER}@s.whatsapp.net"


def test_outside_the_window_a_matching_template_is_sent(
    admin_client, api_client, cloud_integration, chatwoot, graph
):
    cid, _ = _official_conversation(admin_client, cloud_integration, chatwoot, graph)
    ChannelConversation.objects.filter(session=cloud_integration.session).update(
        last_customer_at=timezone.now() - timedelta(hours=25)
    )
    receive(
        api_client, cloud_integration, chatwoot.agent_message(cid, "Olá Maria, seu pedido 123 foi enviado.")
    )
    drain_all(cloud_integration)
    (sent,) = Message.objects.filter(session=cloud_integration.session, from_me=True)
    assert sent.type == "template" and sent.content["template"]["parameters"] == ["Maria", "123"]
    assert not [m for m in chatwoot.messages.values() if m["private"]]


def test_outside_the_window_free_text_is_not_sent_and_a_note_says_why(
    admin_client, api_client, cloud_integration, chatwoot, graph
):
    cid, _ = _official_conversation(admin_client, cloud_integration, chatwoot, graph)
    ChannelConversation.objects.filter(session=cloud_integration.session).update(
        last_customer_at=timezone.now() - timedelta(hours=25)
    )

    def sends() -> int:  # message sends (mark-as-read is a call to the same path)
        return len([c for c in graph.calls if c.path.endswith("/messages") and "to" in c.body])

    sends_before = sends()
    payload = chatwoot.agent_message(cid, "Oi, ainda precisa de algo?")
    receive(api_client, cloud_integration, payload)
    drain_all(cloud_integration)
    assert sends() == sends_before
    assert chatwoot.messages[payload["id"]]["status"] == "failed"
    (note,) = [m for m in chatwoot.messages.values() if m["private"]]
    assert "24 hours" in note["content"]
    (failed,) = Message.objects.filter(session=cloud_integration.session, from_me=True)
    assert failed.status == Message.Status.FAILED


def test_agent_typing_on_an_official_account_marks_read_with_the_typing_indicator(
    admin_client, api_client, cloud_integration, chatwoot, graph
):
    cid, _ = _official_conversation(admin_client, cloud_integration, chatwoot, graph)
    receive(api_client, cloud_integration, chatwoot.agent_typing(cid, True))
    drain_all(cloud_integration)
    (call,) = [c for c in graph.calls if c.path.endswith("/messages") and c.body.get("status") == "read"]
    assert call.body["message_id"] == "wamid.IN1" and call.body["typing_indicator"] == {"type": "text"}


def test_delivered_and_read_receipts_of_agent_messages_reach_the_platform(
    admin_client, api_client, integration, chatwoot, conversation_id
):
    payload = chatwoot.agent_message(conversation_id, "Chegou?")
    receive(api_client, integration, payload)
    drain_all(integration)
    (sent,) = _sent(integration.session)
    inbound(
        admin_client, integration.session, event="message_ack", messageId=sent.message_id, status="delivered"
    )
    drain_all(integration)
    assert chatwoot.messages[payload["id"]]["status"] == "delivered"
    inbound(admin_client, integration.session, event="message_ack", messageId=sent.message_id, status="read")
    drain_all(integration)
    assert chatwoot.messages[payload["id"]]["status"] == "read"


def test_an_attachment_chatwoot_no_longer_serves_is_marked_failed_with_a_note(
    api_client, integration, chatwoot, conversation_id
):
    payload = chatwoot.agent_message(
        conversation_id, "", attachment=("sumiu.pdf", b"%PDF", "application/pdf")
    )
    chatwoot.files.clear()
    receive(api_client, integration, payload)
    drain_all(integration)
    assert _sent(integration.session) == []
    assert chatwoot.messages[payload["id"]]["status"] == "failed"
    (note,) = [m for m in chatwoot.messages.values() if m["private"]]
    assert "sumiu.pdf" in note["content"] and "404" in note["content"]


def test_a_message_the_agent_deletes_is_deleted_for_everyone_on_the_channel(
    api_client, integration, chatwoot, conversation_id
):
    payload = chatwoot.agent_message(conversation_id, "enviada por engano")
    receive(api_client, integration, payload)
    drain_all(integration)
    (sent,) = _sent(integration.session)
    assert receive(api_client, integration, chatwoot.agent_deletes(payload["id"])) == "queued"
    drain_all(integration)
    sent.refresh_from_db()
    assert sent.status == Message.Status.DELETED
    # The channel's echo of the deletion is not carried back into Chatwoot as another deletion or message.
    assert [m["content"] for m in chatwoot.messages.values()] == ["Oi, tudo bem?", "enviada por engano"]


def test_a_message_the_customer_deletes_is_shown_deleted_in_chatwoot(integration, chatwoot, conversation_id):
    from messaging.engines.events import MessageEvent
    from messaging.services.events import engine_event_receive

    revoke = MessageEvent(
        id="3EB0REVOKE0000001",
        chat_jid=JID,
        sender=JID,
        type="revoked",
        revoked_message_id="3EB0CUSTOMER00001",
        revoked_sender=JID,
        revoked_from_me=False,
    )
    engine_event_receive(str(integration.session_id), revoke)
    drain_all(integration)
    (mirrored,) = chatwoot.messages.values()
    assert mirrored["content_attributes"]["deleted"] is True
