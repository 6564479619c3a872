"""Lists, link previews and forwards on the official channels: WhatsApp Cloud's interactive list and
`preview_url`, its `list_reply` arriving as a `list_response`, and 400 OPERATION_NOT_SUPPORTED naming
the channel where the Graph API has no such operation."""

from __future__ import annotations

import pytest

from messaging.models import Message, Session
from tests.messaging.channel_webhooks import PSID, cloud_body, cloud_message, post_signed
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from webhooks.models import Event

pytestmark = pytest.mark.django_db

SECTIONS = [
    {"title": "Pizzas", "rows": [{"rowId": "p1", "title": "Margherita", "description": "Tomate"}]},
    {"title": "Bebidas", "rows": [{"rowId": "b1", "title": "Suco"}]},
]


@pytest.fixture
def cloud(official_session) -> Session:
    return official_session("whatsapp_cloud")


def _list_body(session: Session, to: str = CUSTOMER) -> dict:
    return {
        "sessionId": str(session.pk),
        "to": to,
        "text": "Escolha",
        "buttonText": "Ver menu",
        "title": "Menu",
        "footer": "Loja",
        "sections": SECTIONS,
    }


def test_a_cloud_list_is_its_interactive_list(admin_client, graph, cloud):
    response = admin_client.post("/api/messages/list", _list_body(cloud), format="json")
    assert response.status_code == 200, response.json()
    (call,) = graph.sends()
    assert call.body["type"] == "interactive"
    assert call.body["interactive"] == {
        "type": "list",
        "header": {"type": "text", "text": "Menu"},
        "body": {"text": "Escolha"},
        "footer": {"text": "Loja"},
        "action": {
            "button": "Ver menu",
            "sections": [
                {"title": "Pizzas", "rows": [{"id": "p1", "title": "Margherita", "description": "Tomate"}]},
                {"title": "Bebidas", "rows": [{"id": "b1", "title": "Suco"}]},
            ],
        },
    }
    message = Message.objects.get(message_id=response.json()["messageId"])
    assert message.type == "list" and message.content["list"]["buttonText"] == "Ver menu"


def test_a_cloud_text_with_a_preview_asks_meta_to_preview_the_link(admin_client, graph, cloud):
    body = {"sessionId": str(cloud.pk), "to": CUSTOMER, "text": "https://loja.example/menu"}
    body["linkPreview"] = {"url": "https://loja.example/menu", "title": "Menu"}
    assert admin_client.post("/api/messages/send", body, format="json").status_code == 200
    assert graph.sends()[0].body["text"] == {"body": "https://loja.example/menu", "preview_url": True}


def test_messenger_has_no_lists_or_previews_and_no_channel_forwards(admin_client, graph, messenger, cloud):
    response = admin_client.post("/api/messages/list", _list_body(messenger, PSID), format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "OPERATION_NOT_SUPPORTED" and "Messenger" in response.json()["message"]
    body = {"sessionId": str(messenger.pk), "to": PSID, "text": "https://a.example"}
    body["linkPreview"] = {"url": "https://a.example", "title": "A"}
    refused = admin_client.post("/api/messages/send", body, format="json")
    assert refused.status_code == 400 and refused.json()["error"] == "OPERATION_NOT_SUPPORTED"
    Message.objects.create(
        session=cloud, message_id="wamid.IN1", chat=CUSTOMER_JID, type="text", content={"text": "x"}
    )
    forward = {"sessionId": str(cloud.pk), "to": CUSTOMER, "chat": CUSTOMER, "messageId": "wamid.IN1"}
    refused = admin_client.post("/api/messages/forward", forward, format="json")
    assert refused.status_code == 400 and refused.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert "WhatsApp Cloud" in refused.json()["message"]
    assert graph.sends() == []


def test_a_cloud_list_reply_arrives_as_a_list_response(meta_client, cloud):
    reply = {"type": "list_reply", "list_reply": {"id": "b1", "title": "Suco", "description": "Laranja"}}
    item = cloud_message("interactive", reply, mid="wamid.L1", context={"from": CUSTOMER, "id": "wamid.LIST"})
    assert post_signed(meta_client, cloud, cloud_body(messages=[item])).status_code == 200
    (event,) = Event.objects.filter(session_id=cloud.pk, name="message")
    assert event.data["type"] == "list_response" and event.data["text"] == "Suco"
    assert event.data["listResponse"] == {"rowId": "b1", "title": "Suco", "description": "Laranja"}
    assert event.data["quoted"]["messageId"] == "wamid.LIST"


def test_a_cloud_message_forwarded_by_the_customer_says_so(meta_client, cloud):
    item = cloud_message("text", {"body": "fwd"}, mid="wamid.F1", context={"forwarded": True})
    assert post_signed(meta_client, cloud, cloud_body(messages=[item])).status_code == 200
    (event,) = Event.objects.filter(session_id=cloud.pk, name="message")
    assert event.data["forwarded"] is True
