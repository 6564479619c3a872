"""The three kinds against local stand-ins speaking their real formats: an n8n-style webhook (signed
like a webhook, answering replies), an OpenAI-compatible Chat Completions endpoint (the chat as
context) and Typebot's public API (a session per chat, a choice as a list message). Replies are the
session's own messages: stored, emitted as fromMe events, counted in the plan's quota."""

from __future__ import annotations

import pytest
from standardwebhooks import Webhook

from integrations.bots.models import Conversation
from messaging.models import DailyMessageCount
from tests.integrations.bots_standin import BotStandIn
from tests.integrations.bots_support import HOOK_SECRET, bot_create, drain_bots, sent_texts
from tests.integrations.support import CUSTOMER, inbound
from webhooks.models import Event

pytestmark = pytest.mark.django_db
JID = f"{CUSTOMER}@s.whatsapp.net"


@pytest.fixture
def standin(allow_loopback):
    server = BotStandIn().start()
    yield server
    server.stop()


def test_the_http_kind_posts_the_signed_webhook_body_and_sends_the_replies(
    admin_client, paired_session, standin
):
    standin.hook_answer = (200, {"replies": [{"text": "Oi! Recebemos."}, {"text": "Um atendente já vem."}]})
    bot = bot_create(admin_client, paired_session, "http", {"url": f"{standin.url}/hook"})
    inbound(admin_client, paired_session, text="Quero ajuda", pushName="Maria")
    assert drain_bots() >= 1
    (call,) = standin.calls_to("/hook")
    assert call.body["event"] == "message" and call.body["session_id"] == str(paired_session.pk)
    assert call.body["data"]["text"] == "Quero ajuda" and call.body["data"]["fromMe"] is False
    assert call.body["bot"] == {
        "id": bot["id"],
        "name": "http bot",
        "chat": JID,
        "text": "Quero ajuda",
        "messages": [call.body["data"]["id"]],
    }
    headers = {name.lower(): value for name, value in call.headers.items()}
    Webhook(HOOK_SECRET.encode()).verify(call.raw.decode(), headers)  # raises when the signature is wrong
    assert sent_texts(paired_session, JID) == ["Oi! Recebemos.", "Um atendente já vem."]
    echoes = Event.objects.filter(name="message", data__fromMe=True, data__text="Oi! Recebemos.")
    assert echoes.count() == 1
    assert DailyMessageCount.objects.get(account=paired_session.account).count == 2


def test_an_empty_answer_sends_nothing(admin_client, paired_session, standin):
    standin.hook_answer = (200, None)
    bot_create(admin_client, paired_session, "http", {"url": f"{standin.url}/hook"})
    inbound(admin_client, paired_session, text="oi")
    drain_bots()
    assert len(standin.calls_to("/hook")) == 1
    assert sent_texts(paired_session, JID) == []


def test_the_openai_kind_sends_the_system_prompt_and_the_chat_as_context(
    admin_client, paired_session, standin
):
    settings = {
        "baseUrl": f"{standin.url}/v1",
        "model": "llama3.1",
        "systemPrompt": "Você é o assistente da Loja.",
        "temperature": 0.2,
        "maxTokens": 200,
        "contextMessages": 3,
    }
    bot_create(admin_client, paired_session, "openai", settings, secret="sk-local-123")
    standin.model_text = "Temos camisetas."
    inbound(admin_client, paired_session, text="Vocês têm camisetas?")
    drain_bots()
    standin.model_text = "Custam R$ 50."
    inbound(admin_client, paired_session, text="Quanto custam?")
    drain_bots()
    first, second = standin.calls_to("/v1/chat/completions")
    assert first.headers["Authorization"] == "Bearer sk-local-123"
    assert second.body["model"] == "llama3.1" and second.body["temperature"] == 0.2
    assert second.body["max_tokens"] == 200
    assert second.body["messages"] == [
        {"role": "system", "content": "Você é o assistente da Loja."},
        {"role": "user", "content": "Vocês têm camisetas?"},
        {"role": "assistant", "content": "Temos camisetas."},
        {"role": "user", "content": "Quanto custam?"},
    ]
    assert sent_texts(paired_session, JID) == ["Temos camisetas.", "Custam R$ 50."]


def test_the_typebot_kind_keeps_its_session_per_chat_and_ends_with_the_flow(
    admin_client, paired_session, standin
):
    bot = bot_create(
        admin_client, paired_session, "typebot", {"baseUrl": standin.url, "typebot": "loja-abc123"}
    )
    inbound(admin_client, paired_session, text="oi")
    drain_bots()
    (start,) = standin.calls_to("/api/v1/typebots/loja-abc123/startChat")
    assert start.body["message"] == {"type": "text", "text": "oi"}
    conversation = Conversation.objects.get(bot_id=bot["id"], chat=JID)
    assert conversation.state["sessionId"].startswith("tb-session-")
    listing = paired_session.messages.filter(from_me=True, type="list").get()
    assert listing.content["text"] == "Sobre o que quer falar?"
    assert listing.content["list"]["buttonText"] == "Options"
    rows = listing.content["list"]["sections"][0]["rows"]
    assert [(row["rowId"], row["title"]) for row in rows] == [("it-plans", "Planos"), ("it-help", "Suporte")]
    assert sent_texts(paired_session, JID)[0] == "Olá! Sou o assistente."
    # The customer picks a row of the list: Typebot gets the choice's text.
    choice = {"rowId": "it-plans", "title": "Planos"}
    inbound(admin_client, paired_session, type="list_response", listResponse=choice)
    drain_bots()
    (cont,) = standin.calls_to("/api/v1/sessions/")
    assert cont.path == f"/api/v1/sessions/{conversation.state['sessionId']}/continueChat"
    assert "Você escolheu Planos." in sent_texts(paired_session, JID)
    assert paired_session.messages.filter(from_me=True, type="image").count() == 1
    conversation.refresh_from_db()
    assert conversation.status == Conversation.Status.ENDED and conversation.state == {}
