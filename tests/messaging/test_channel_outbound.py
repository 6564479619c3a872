"""Outbound on official channels: each operation's Graph API call, what a channel cannot do, and the
Graph API's errors mapped onto Ponte's."""

from __future__ import annotations

import pytest

from messaging.models import Message, Session
from tests.messaging.channel_webhooks import PSID
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from tests.messaging.graph_standin import CLOUD_TOKEN, PAGE_ID, PAGE_TOKEN, PHONE_NUMBER_ID, VERSION
from webhooks.models import Event

pytestmark = pytest.mark.django_db

PSID_JID = f"{PSID}@s.whatsapp.net"
CLOUD_PATH = f"/{VERSION}/{PHONE_NUMBER_ID}/messages"
PAGE_PATH = f"/{VERSION}/{PAGE_ID}/messages"


@pytest.fixture
def cloud(official_session) -> Session:
    return official_session("whatsapp_cloud")


def _inbound(session: Session, message_id: str, chat: str) -> Message:
    return Message.objects.create(
        session=session, message_id=message_id, chat=chat, sender=chat, direction="inbound", from_me=False
    )


def test_cloud_text_is_posted_with_the_bearer_token_and_recorded(admin_client, graph, cloud):
    response = admin_client.post(
        "/api/messages/send", {"sessionId": str(cloud.pk), "to": CUSTOMER, "text": "Olá"}, format="json"
    )
    assert response.status_code == 200, response.json()
    (call,) = graph.sends()
    assert call.path == CLOUD_PATH and call.token == CLOUD_TOKEN
    assert call.body == {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": CUSTOMER,
        "type": "text",
        "text": {"body": "Olá", "preview_url": False},
    }
    message = Message.objects.get(message_id=response.json()["messageId"])
    assert message.message_id.startswith("wamid.") and message.status == "sent"


def test_a_cloud_reply_carries_the_context_message_id(admin_client, graph, cloud):
    _inbound(cloud, "wamid.IN9", CUSTOMER_JID)
    body = {"sessionId": str(cloud.pk), "to": CUSTOMER, "text": "sim", "quoted": {"messageId": "wamid.IN9"}}
    assert admin_client.post("/api/messages/send", body, format="json").status_code == 200
    assert graph.sends()[0].body["context"] == {"message_id": "wamid.IN9"}


def test_messenger_text_and_reply_go_to_the_page_with_the_page_token(admin_client, graph, messenger):
    _inbound(messenger, "m_IN1", PSID_JID)
    body = {"sessionId": str(messenger.pk), "to": PSID, "text": "hi", "quoted": {"messageId": "m_IN1"}}
    response = admin_client.post("/api/messages/send", body, format="json")
    assert response.status_code == 200, response.json()
    (call,) = graph.sends()
    assert call.path == PAGE_PATH and call.token == PAGE_TOKEN
    assert call.body == {
        "recipient": {"id": PSID},
        "messaging_type": "RESPONSE",
        "message": {"text": "hi", "reply_to": {"mid": "m_IN1"}},
    }


def test_cloud_reactions_send_the_emoji_and_an_empty_one_removes_it(admin_client, graph, cloud):
    _inbound(cloud, "wamid.IN1", CUSTOMER_JID)
    base = {"sessionId": str(cloud.pk), "to": CUSTOMER, "messageId": "wamid.IN1"}
    assert (
        admin_client.post("/api/messages/reaction", {**base, "reaction": "👍"}, format="json").status_code
        == 200
    )
    assert (
        admin_client.post("/api/messages/reaction", {**base, "reaction": ""}, format="json").status_code
        == 200
    )
    reactions = [c.body["reaction"] for c in graph.sends()]
    assert reactions == [{"message_id": "wamid.IN1", "emoji": "👍"}, {"message_id": "wamid.IN1", "emoji": ""}]


def test_messenger_reactions_take_provider_and_text(admin_client, graph, messenger):
    _inbound(messenger, "m_IN1", PSID_JID)
    base = {"sessionId": str(messenger.pk), "to": PSID, "messageId": "m_IN1", "provider": "messenger"}
    response = admin_client.post("/api/messages/reaction", {**base, "text": "❤"}, format="json")
    assert response.status_code == 200 and response.json()["reaction"] == "❤"
    response = admin_client.post("/api/messages/reaction", {**base, "text": ""}, format="json")
    assert response.status_code == 200 and response.json()["reaction"] is None
    bodies = [c.body for c in graph.sends()]
    assert bodies[0] == {
        "recipient": {"id": PSID},
        "sender_action": "react",
        "payload": {"message_id": "m_IN1", "reaction": "❤"},
    }
    assert bodies[1]["sender_action"] == "unreact"


@pytest.mark.parametrize("name", ["like", "love", "heart 1"])
def test_reaction_names_are_refused_upfront(admin_client, graph, messenger, name):
    _inbound(messenger, "m_IN1", PSID_JID)
    body = {
        "sessionId": str(messenger.pk),
        "to": PSID,
        "messageId": "m_IN1",
        "provider": "messenger",
        "text": name,
    }
    response = admin_client.post("/api/messages/reaction", body, format="json")
    assert response.status_code == 400 and "emoji" in response.json()["message"]
    assert graph.sends() == []


def test_a_reaction_naming_another_provider_is_refused(admin_client, graph, messenger):
    _inbound(messenger, "m_IN1", PSID_JID)
    body = {
        "sessionId": str(messenger.pk),
        "to": PSID,
        "messageId": "m_IN1",
        "provider": "instagram",
        "text": "❤",
    }
    response = admin_client.post("/api/messages/reaction", body, format="json")
    assert response.status_code == 400 and "provider" in response.json()["message"]


def test_cloud_contacts_location_and_buttons(admin_client, graph, cloud):
    sid = str(cloud.pk)
    card = {"sessionId": sid, "to": CUSTOMER, "displayName": "Ana", "phoneNumber": "5511977776666"}
    assert admin_client.post("/api/messages/vcard", card, format="json").status_code == 200
    place = {"sessionId": sid, "to": CUSTOMER, "latitude": -23.5, "longitude": -46.6, "name": "SP"}
    assert admin_client.post("/api/messages/location", place, format="json").status_code == 200
    buttons = {
        "sessionId": sid,
        "to": CUSTOMER,
        "text": "Confirma?",
        "footer": "Acme",
        "buttons": [{"buttonId": "y", "buttonText": "Sim"}, {"buttonId": "n", "buttonText": "Não"}],
    }
    assert admin_client.post("/api/messages/buttons", buttons, format="json").status_code == 200
    contacts, location, interactive = (c.body for c in graph.sends())
    assert contacts["type"] == "contacts"
    assert contacts["contacts"][0]["phones"] == [
        {"phone": "+5511977776666", "type": "CELL", "wa_id": "5511977776666"}
    ]
    assert location["location"] == {"latitude": -23.5, "longitude": -46.6, "name": "SP", "address": ""}
    assert interactive["interactive"]["type"] == "button"
    assert interactive["interactive"]["action"]["buttons"][1] == {
        "type": "reply",
        "reply": {"id": "n", "title": "Não"},
    }
    assert interactive["interactive"]["footer"] == {"text": "Acme"}


def test_more_than_three_buttons_are_refused_before_the_graph_api(admin_client, graph, cloud):
    buttons = [{"buttonId": str(i), "buttonText": f"b{i}"} for i in range(4)]
    body = {"sessionId": str(cloud.pk), "to": CUSTOMER, "text": "?", "buttons": buttons}
    assert admin_client.post("/api/messages/buttons", body, format="json").status_code == 400
    assert graph.sends() == []


def test_messenger_buttons_are_quick_replies(admin_client, graph, messenger):
    body = {
        "sessionId": str(messenger.pk),
        "to": PSID,
        "text": "?",
        "buttons": [{"buttonId": "y", "buttonText": "Yes"}],
    }
    assert admin_client.post("/api/messages/buttons", body, format="json").status_code == 200
    assert graph.sends()[0].body["message"]["quick_replies"] == [
        {"content_type": "text", "title": "Yes", "payload": "y"}
    ]


@pytest.mark.parametrize("provider", ["whatsapp_cloud", "messenger"])
def test_media_by_url(admin_client, graph, official_session, provider):
    session = official_session(provider)
    to = CUSTOMER if provider == "whatsapp_cloud" else PSID
    body = {
        "sessionId": str(session.pk),
        "to": to,
        "type": "document",
        "url": "https://files.example.com/a.pdf",
        "caption": "fatura",
        "fileName": "a.pdf",
    }
    response = admin_client.post("/api/messages/media", body, format="json")
    assert response.status_code == 200, response.json()
    sent = graph.sends()[0].body
    if provider == "whatsapp_cloud":
        assert sent["document"] == {
            "link": "https://files.example.com/a.pdf",
            "caption": "fatura",
            "filename": "a.pdf",
        }
    else:
        assert sent["message"]["attachment"]["type"] == "file"
        assert sent["message"]["attachment"]["payload"]["url"] == "https://files.example.com/a.pdf"
    assert Message.objects.get(message_id=response.json()["messageId"]).type == "document"


def test_mark_as_read_shows_the_typing_indicator(admin_client, graph, cloud, messenger):
    _inbound(cloud, "wamid.IN1", CUSTOMER_JID)
    body = {"sessionId": str(cloud.pk), "chatId": CUSTOMER, "messageIds": ["wamid.IN1"]}
    assert admin_client.post("/api/chats/read", body, format="json").status_code == 200
    assert graph.sends()[0].body == {
        "messaging_product": "whatsapp",
        "status": "read",
        "message_id": "wamid.IN1",
        "typing_indicator": {"type": "text"},
    }
    assert Message.objects.get(message_id="wamid.IN1").status == "read"
    _inbound(messenger, "m_IN1", PSID_JID)
    body = {"sessionId": str(messenger.pk), "chatId": PSID, "messageIds": ["m_IN1"]}
    assert admin_client.post("/api/chats/read", body, format="json").status_code == 200
    assert [c.body.get("sender_action") for c in graph.sends()[1:]] == ["mark_seen", "typing_on"]


def test_messenger_cannot_send_contact_cards_or_locations(admin_client, graph, messenger):
    card = {"sessionId": str(messenger.pk), "to": PSID, "displayName": "Ana", "phoneNumber": "5511977776666"}
    response = admin_client.post("/api/messages/vcard", card, format="json")
    assert response.status_code == 400 and response.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert "Messenger" in response.json()["message"]
    place = {"sessionId": str(messenger.pk), "to": PSID, "latitude": 1, "longitude": 2}
    assert admin_client.post("/api/messages/location", place, format="json").json()["error"] == (
        "OPERATION_NOT_SUPPORTED"
    )
    assert graph.sends() == []


@pytest.mark.parametrize("provider", ["whatsapp_cloud", "messenger", "instagram"])
def test_what_official_channels_cannot_do_answers_operation_not_supported(
    admin_client, graph, official_session, provider
):
    session = official_session(provider)
    sid = str(session.pk)
    chat = f"{CUSTOMER}@s.whatsapp.net"
    Message.objects.create(session=session, message_id="OUT1", chat=chat, from_me=True)
    replies = [
        admin_client.post(
            "/api/messages/delete",
            {"sessionId": sid, "remoteJid": CUSTOMER, "messageId": "OUT1", "fromMe": True},
            format="json",
        ),
        admin_client.post(
            "/api/groups", {"sessionId": sid, "subject": "g", "participants": [CUSTOMER]}, format="json"
        ),
        admin_client.get("/api/groups/list", {"sessionId": sid}),
        admin_client.get("/api/contacts/check", {"sessionId": sid, "numbers": CUSTOMER}),
        admin_client.put("/api/contacts/profile/name", {"sessionId": sid, "name": "Acme"}, format="json"),
    ]
    for reply in replies:
        assert reply.status_code == 400, reply.json()
        assert reply.json()["error"] == "OPERATION_NOT_SUPPORTED"
    channel = {"whatsapp_cloud": "WhatsApp Cloud API", "messenger": "Messenger", "instagram": "Instagram"}[
        provider
    ]
    assert channel in replies[0].json()["message"]
    assert graph.sends() == []


# --- Graph API errors ---------------------------------------------------------------------------------


def _send(admin_client, session, to=CUSTOMER):
    return admin_client.post(
        "/api/messages/send", {"sessionId": str(session.pk), "to": to, "text": "oi"}, format="json"
    )


@pytest.mark.parametrize("code", [130429, 131056])
def test_graph_throughput_errors_are_429_with_retry_after(admin_client, graph, cloud, code):
    graph.fail_next(400, code, "Rate limit hit", headers={"Retry-After": "30"})
    response = _send(admin_client, cloud)
    assert response.status_code == 429
    assert response["Retry-After"] == "30" and response.json()["retryAfter"] == 30
    assert not Message.objects.filter(session=cloud, from_me=True).exists()


def test_a_throughput_error_without_retry_after_gets_a_default(admin_client, graph, messenger):
    graph.fail_next(400, 130429, "Rate limit hit")
    response = _send(admin_client, messenger, to=PSID)
    assert response.status_code == 429 and int(response["Retry-After"]) > 0


def test_graph_131047_is_outside_customer_window(admin_client, graph, cloud):
    graph.fail_next(400, 131047, "Re-engagement message")
    response = _send(admin_client, cloud)
    assert response.status_code == 409 and response.json()["error"] == "OUTSIDE_CUSTOMER_WINDOW"


@pytest.mark.parametrize("provider", ["whatsapp_cloud", "messenger", "instagram"])
def test_a_refused_token_disconnects_the_session_with_a_reason_and_an_event(
    admin_client, graph, official_session, provider
):
    session = official_session(provider)
    graph.tokens.clear()  # the token was revoked at Meta
    response = _send(admin_client, session, to=CUSTOMER)
    assert response.status_code == 409
    assert response.json()["error"] == "SESSION_NOT_CONNECTED" and response.json()["status"] == "disconnected"
    session.refresh_from_db()
    assert session.status == "disconnected"
    assert "access token refused" in session.channel.disconnect_reason
    event = Event.objects.get(session_id=session.pk, name="disconnected")
    assert "access token refused" in event.data["reason"]
    assert _send(admin_client, session).json()["error"] == "SESSION_NOT_CONNECTED"


def test_other_graph_errors_are_400_with_meta_s_message(admin_client, graph, cloud):
    graph.fail_next(400, 100, "(#100) Invalid parameter")
    response = _send(admin_client, cloud)
    assert response.status_code == 400 and "Invalid parameter" in response.json()["message"]


def test_an_unreachable_graph_api_is_502(admin_client, graph, cloud, settings):
    settings.PONTE_GRAPH_API_URL = "http://127.0.0.1:9"
    response = _send(admin_client, cloud)
    assert response.status_code == 502 and response.json()["error"] == "ENGINE_UNAVAILABLE"


def test_messenger_recipients_may_be_psids_longer_than_phone_numbers(admin_client, graph, messenger, cloud):
    psid = "24681357902468013"  # 17 digits, as Meta issues them
    body = {"sessionId": str(messenger.pk), "to": psid, "text": "hi"}
    response = admin_client.post("/api/messages/send", body, format="json")
    assert response.status_code == 200, response.json()
    assert graph.sends()[0].body["recipient"] == {"id": psid}
    assert Message.objects.get(message_id=response.json()["messageId"]).chat == f"{psid}@s.whatsapp.net"
    # a phone-number channel keeps the phone-number rule
    refused = admin_client.post("/api/messages/send", {**body, "sessionId": str(cloud.pk)}, format="json")
    assert refused.status_code == 400


def test_official_channels_refuse_media_sent_as_base64(admin_client, graph, cloud):
    body = {"sessionId": str(cloud.pk), "to": CUSTOMER, "type": "image", "base64": "aGVsbG8="}
    response = admin_client.post("/api/messages/media", body, format="json")
    assert response.status_code == 400 and response.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert "url" in response.json()["message"] and graph.sends() == []
