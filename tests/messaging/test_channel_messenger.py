"""Messenger extras: webhook fields, the ordering block, reactions and stickers in the envelope, names,
customers' edits."""

from __future__ import annotations

import json
import logging
import time

import pytest

from messaging.channels.models import ChannelCall
from messaging.models import Chat, Contact, Message
from tests.messaging.channel_webhooks import PSID, page_body, page_item, post_signed
from tests.messaging.graph_standin import IG_ID, PAGE_ID, VERSION
from tests.webhooks.instance_schema import validate_envelope
from tests.webhooks.instance_support import configure
from tests.webhooks.support import LOOPBACK, Receiver
from webhooks.models import Delivery, Event
from webhooks.outbox import drains as outbox

pytestmark = pytest.mark.django_db


def test_webhook_fields_show_what_the_page_subscribes_and_what_is_missing(admin_client, graph, messenger):
    response = admin_client.get(f"/api/sessions/{messenger.pk}/webhook-fields")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["provider"] == "messenger" and body["subscribed"] == ["messages"]
    assert body["missing"] == [
        "message_edits",
        "message_reactions",
        "messaging_postbacks",
        "message_reads",
        "message_deliveries",
    ]
    assert graph.calls[-1].path == f"/{VERSION}/{PAGE_ID}/subscribed_apps"


def test_post_subscribes_the_missing_fields_keeping_the_others(admin_client, graph, messenger):
    graph.subscribed_fields = ["messages", "feed"]
    response = admin_client.post(f"/api/sessions/{messenger.pk}/webhook-fields")
    assert response.status_code == 200
    body = response.json()
    assert body["missing"] == [] and "feed" in body["subscribed"]
    assert body["added"] == [
        "message_edits",
        "message_reactions",
        "messaging_postbacks",
        "message_reads",
        "message_deliveries",
    ]
    post = next(c for c in graph.calls if c.method == "POST" and c.path.endswith("subscribed_apps"))
    assert set(post.query["subscribed_fields"][0].split(",")) >= {"messages", "feed", "message_reads"}
    again = admin_client.post(f"/api/sessions/{messenger.pk}/webhook-fields").json()
    assert again["added"] == []


def test_instagram_webhook_fields_use_the_instagram_account(admin_client, graph, official_session):
    session = official_session("instagram")
    body = admin_client.get(f"/api/sessions/{session.pk}/webhook-fields").json()
    assert "messaging_seen" in body["required"]
    assert graph.calls[-1].path == f"/{VERSION}/{IG_ID}/subscribed_apps"


def test_the_cloud_api_has_no_webhook_fields_route(admin_client, official_session):
    session = official_session("whatsapp_cloud")
    response = admin_client.get(f"/api/sessions/{session.pk}/webhook-fields")
    assert response.status_code == 400 and response.json()["error"] == "OPERATION_NOT_SUPPORTED"


def _instance_payloads(session) -> list[dict]:
    deliveries = Delivery.objects.filter(session=session, kind=Delivery.Kind.INSTANCE).order_by(
        "event__sequence"
    )
    return [d.payload for d in deliveries]


def test_messenger_reactions_and_stickers_render_with_action_and_sticker_id(meta_client, messenger):
    configure(messenger, webhook_format="meta")
    body = page_body(
        page_item(
            1763800000000, reaction={"mid": "m_OUT", "action": "react", "reaction": "love", "emoji": "❤"}
        ),
        page_item(1763800001000, reaction={"mid": "m_OUT", "action": "unreact"}),
        page_item(
            1763800002000,
            message={
                "mid": "m_2",
                "sticker_id": 369239263222822,
                "attachments": [
                    {
                        "type": "image",
                        "payload": {"url": "https://x.example/s.png", "sticker_id": 369239263222822},
                    }
                ],
            },
        ),
    )
    assert post_signed(meta_client, messenger, body).status_code == 200
    react, unreact, sticker = (
        p["entry"][0]["changes"][0]["value"]["messages"][0] for p in _instance_payloads(messenger)
    )
    for payload in _instance_payloads(messenger):
        validate_envelope(payload)
    assert react["reaction"] == {"message_id": "m_OUT", "emoji": "❤", "action": "react"}
    assert unreact["reaction"] == {"message_id": "m_OUT", "action": "unreact"}
    assert sticker["sticker"]["sticker_id"] == "369239263222822"
    assert sticker["sticker"]["url"] == "https://x.example/s.png"


def test_the_ordering_block_numbers_a_conversation_in_order_of_receipt(meta_client, messenger):
    configure(messenger, webhook_format="meta")
    first = page_body(page_item(1763800005000, message={"mid": "m_1", "text": "one"}))
    second = page_body(
        page_item(1763800001000, message={"mid": "m_2", "text": "two"})
    )  # earlier event, later POST
    other = page_body(page_item(1763800002000, sender="135791113151719", message={"mid": "m_3", "text": "x"}))
    for body in (first, second, other):
        assert post_signed(meta_client, messenger, body).status_code == 200
    blocks = {
        p["entry"][0]["changes"][0]["value"]["messages"][0]["id"]: p["entry"][0]["changes"][0]["value"][
            "ponte"
        ]
        for p in _instance_payloads(messenger)
    }
    assert blocks["m_2"]["seq"] == blocks["m_1"]["seq"] + 1
    assert blocks["m_3"]["seq"] == 1  # its own conversation
    assert blocks["m_1"]["event_ms"] == 1763800005000 and blocks["m_2"]["event_ms"] == 1763800001000
    assert blocks["m_2"]["received_at_ms"] >= blocks["m_1"]["received_at_ms"]


def test_dispatched_at_ms_is_taken_when_the_post_is_sent(meta_client, messenger, settings):
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = [LOOPBACK]
    receiver = Receiver().start()
    try:
        configure(messenger, webhook_format="meta", webhook_message=receiver.url)
        post_signed(
            meta_client, messenger, page_body(page_item(1763800000000, message={"mid": "m_1", "text": "a"}))
        )
        delivery = Delivery.objects.get(session=messenger, kind=Delivery.Kind.INSTANCE)
        time.sleep(0.05)
        before = int(time.time() * 1000)
        assert outbox.delivery_attempt(delivery_id=delivery.pk) == "delivered"
        sent = json.loads(receiver.received[0].body)
        block = sent["entry"][0]["changes"][0]["value"]["ponte"]
        assert block["dispatched_at_ms"] >= before >= block["received_at_ms"]
    finally:
        receiver.stop()


def test_only_the_messenger_channel_gets_the_ordering_block(meta_client, official_session):
    session = official_session("instagram")
    configure(session, webhook_format="meta")
    body = page_body(page_item(1763800000000, message={"mid": "m_1", "text": "a"}), provider="instagram")
    assert post_signed(meta_client, session, body).status_code == 200
    (payload,) = _instance_payloads(session)
    assert "ponte" not in payload["entry"][0]["changes"][0]["value"]
    assert payload["provider"] == "instagram" and payload["official"] is True


def test_the_customer_s_name_comes_from_the_profile(meta_client, graph, messenger):
    """Looked up by a job after the first message is recorded (issue 40 item 4): the name fills that
    message's row, the contact and the chat, and is on every later message's event."""
    post_signed(meta_client, messenger, page_body(page_item(message={"mid": "m_1", "text": "a"})))
    assert any(c.path == f"/{VERSION}/{PSID}" for c in graph.calls)
    call = ChannelCall.objects.get(session=messenger, kind="profile")
    assert call.status == "done"
    assert Message.objects.get(session=messenger, message_id="m_1").push_name == "Maria Customer"
    assert Contact.objects.get(session=messenger, jid=call.chat).push_name == "Maria Customer"
    assert Chat.objects.get(session=messenger, jid=call.chat).name == "Maria Customer"
    post_signed(meta_client, messenger, page_body(page_item(message={"mid": "m_2", "text": "b"})))
    second = Event.objects.get(session_id=messenger.pk, name="message", data__id="m_2")
    assert second.data["pushName"] == "Maria Customer"
    assert ChannelCall.objects.filter(kind="profile").count() == 1, "the name is cached: asked once"


def test_a_refused_profile_is_logged_and_the_message_still_arrives(meta_client, graph, messenger, caplog):
    graph.refuse_profiles = True
    with caplog.at_level(logging.WARNING, logger="messaging.channels.profiles"):
        response = post_signed(
            meta_client, messenger, page_body(page_item(message={"mid": "m_1", "text": "a"}))
        )
    assert response.status_code == 200
    assert Event.objects.get(session_id=messenger.pk, name="message").data["pushName"] == ""
    assert any("refused" in r.getMessage() and PSID in r.getMessage() for r in caplog.records)


def test_a_customer_s_edit_on_messenger_changes_the_history_and_emits_message_edited(meta_client, messenger):
    post_signed(
        meta_client, messenger, page_body(page_item(1763800000000, message={"mid": "m_1", "text": "helo"}))
    )
    edit = {"mid": "m_1", "text": "hello", "num_edit": 1}
    body = page_body(page_item(1763800060000, message_edit=edit))
    assert post_signed(meta_client, messenger, body).status_code == 200
    event = Event.objects.get(session=messenger, name="message_edited")
    assert event.data["messageId"] == "m_1" and event.data["text"] == "hello"
    assert event.data["fromMe"] is False and event.data["chat"] == event.data["sender"]
    assert event.data["editedAt"].startswith("2025-11-22T08:27:40")  # the item's timestamp
    message = Message.objects.get(session=messenger, message_id="m_1")
    assert message.content["text"] == "hello" and message.edited_at is not None


def test_a_messenger_edit_without_a_message_id_is_skipped(meta_client, messenger):
    body = page_body(page_item(1763800060000, message_edit={"text": "hello", "num_edit": 1}))
    assert post_signed(meta_client, messenger, body).status_code == 200
    assert not Event.objects.filter(session=messenger, name="message_edited").exists()
