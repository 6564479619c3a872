"""Inbound webhooks of official channels: the challenge, the signature, the typed events they become."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from messaging.channels.models import ChannelConversation
from messaging.models import Message
from tests.messaging.channel_webhooks import (
    PSID,
    cloud_body,
    cloud_message,
    page_body,
    page_item,
    post_signed,
)
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from tests.messaging.graph_standin import VERIFY_TOKEN
from tests.webhooks.instance_schema import validate_envelope
from tests.webhooks.instance_support import configure
from webhooks.models import Delivery, Event, Webhook

pytestmark = pytest.mark.django_db

PSID_JID = f"{PSID}@s.whatsapp.net"


def _challenge(meta_client, session, **params):
    return meta_client.get(f"/channels/{session.provider}/{session.pk}/webhook", params)


@pytest.mark.parametrize("provider", ["whatsapp_cloud", "messenger", "instagram"])
def test_the_challenge_is_echoed_as_text_when_the_verify_token_matches(
    meta_client, official_session, provider
):
    session = official_session(provider)
    params = {"hub.mode": "subscribe", "hub.verify_token": VERIFY_TOKEN, "hub.challenge": "1158201444"}
    response = _challenge(meta_client, session, **params)
    assert response.status_code == 200
    assert response.content == b"1158201444"
    assert response["Content-Type"].startswith("text/plain")


def test_a_wrong_verify_token_or_mode_is_403(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    bad_token = {"hub.mode": "subscribe", "hub.verify_token": "nope", "hub.challenge": "1"}
    bad_mode = {"hub.mode": "unsubscribe", "hub.verify_token": VERIFY_TOKEN, "hub.challenge": "1"}
    assert _challenge(meta_client, session, **bad_token).status_code == 403
    assert _challenge(meta_client, session, **bad_mode).status_code == 403


def test_a_webhook_for_an_unknown_session_or_the_wrong_provider_is_404(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    params = {"hub.mode": "subscribe", "hub.verify_token": VERIFY_TOKEN, "hub.challenge": "1"}
    assert meta_client.get(f"/channels/messenger/{session.pk}/webhook", params).status_code == 404
    assert meta_client.get("/channels/whatsapp_cloud/not-a-uuid/webhook", params).status_code == 404


@pytest.mark.parametrize("signature", ["", "sha256=00", "sha1=abc", None])
def test_a_post_with_a_bad_signature_is_401_and_records_nothing(meta_client, official_session, signature):
    session = official_session("whatsapp_cloud")
    body = cloud_body(messages=[cloud_message("text", {"body": "oi"})])
    before = Event.objects.count()
    if signature is None:  # signed with another secret
        response = post_signed(meta_client, session, body, secret="another-secret")
    else:
        response = post_signed(meta_client, session, body, signature=signature)
    assert response.status_code == 401
    assert Event.objects.count() == before and not Message.objects.exists()


def test_a_signature_of_other_bytes_is_refused(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    body = cloud_body(messages=[cloud_message("text", {"body": "oi"})])
    from tests.messaging.graph_standin import sign

    response = post_signed(meta_client, session, body, signature=sign(b'{"other": true}'))
    assert response.status_code == 401


def test_a_cloud_text_message_becomes_a_message_event_and_opens_the_window(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    body = cloud_body(messages=[cloud_message("text", {"body": "Olá"}, ts=1763800000)])
    response = post_signed(meta_client, session, body)
    assert response.status_code == 200
    event = Event.objects.get(session_id=session.pk, name="message")
    assert event.data["text"] == "Olá" and event.data["sender"] == CUSTOMER_JID
    assert event.data["pushName"] == "Maria" and event.data["timestamp"] == 1763800000
    assert event.event_ms == 1763800000000
    message = Message.objects.get(message_id="wamid.IN1")
    assert message.direction == "inbound" and message.chat == CUSTOMER_JID
    window = ChannelConversation.objects.get(session=session, chat=CUSTOMER_JID)
    assert int(window.last_customer_at.timestamp()) == 1763800000


def test_cloud_media_reactions_stickers_and_button_replies_are_typed(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    messages = [
        cloud_message(
            "image", {"id": "MEDIA1", "mime_type": "image/jpeg", "sha256": "abc", "caption": "c"}, mid="m1"
        ),
        cloud_message("sticker", {"id": "MEDIA2", "mime_type": "image/webp", "animated": True}, mid="m2"),
        cloud_message("reaction", {"message_id": "wamid.OUT1", "emoji": "👍"}, mid="m3"),
        cloud_message(
            "interactive", {"type": "button_reply", "button_reply": {"id": "yes", "title": "Sim"}}, mid="m4"
        ),
        cloud_message("location", {"latitude": -23.5, "longitude": -46.6, "name": "SP"}, mid="m5"),
    ]
    assert post_signed(meta_client, session, cloud_body(messages=messages)).status_code == 200
    events = {e.data["id"]: e.data for e in Event.objects.filter(session_id=session.pk, name="message")}
    assert events["m1"]["type"] == "image" and events["m1"]["mediaId"] == "MEDIA1"
    assert events["m1"]["caption"] == "c"
    assert events["m2"]["type"] == "sticker" and events["m2"]["animated"] is True
    assert events["m3"]["reaction"] == {"messageId": "wamid.OUT1", "emoji": "👍"}
    assert events["m4"]["type"] == "button_reply" and events["m4"]["selectedId"] == "yes"
    assert events["m5"]["location"]["latitude"] == -23.5


def test_cloud_statuses_become_acks_that_advance_the_message(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    Message.objects.create(session=session, message_id="wamid.OUT1", chat=CUSTOMER_JID, from_me=True)
    statuses = [
        {"id": "wamid.OUT1", "status": "delivered", "timestamp": "1763800100", "recipient_id": CUSTOMER},
        {"id": "wamid.OUT1", "status": "read", "timestamp": "1763800200", "recipient_id": CUSTOMER},
    ]
    assert post_signed(meta_client, session, cloud_body(statuses=statuses)).status_code == 200
    acks = list(Event.objects.filter(session_id=session.pk, name="message_ack").order_by("sequence"))
    assert [a.data["status"] for a in acks] == ["delivered", "read"]
    assert Message.objects.get(message_id="wamid.OUT1").status == "read"


def test_a_failed_status_marks_the_message_failed(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    Message.objects.create(session=session, message_id="wamid.OUT2", chat=CUSTOMER_JID, from_me=True)
    failed = {
        "id": "wamid.OUT2",
        "status": "failed",
        "timestamp": "1763800100",
        "recipient_id": CUSTOMER,
        "errors": [{"code": 131026, "title": "Message undeliverable"}],
    }
    assert post_signed(meta_client, session, cloud_body(statuses=[failed])).status_code == 200
    ack = Event.objects.get(session_id=session.pk, name="message_ack")
    assert ack.data["status"] == "failed" and "131026" in ack.data["error"]
    assert Message.objects.get(message_id="wamid.OUT2").status == "failed"


def test_messenger_items_become_messages_reactions_stickers_postbacks_and_acks(meta_client, official_session):
    session = official_session("messenger")
    sent_at = datetime.fromtimestamp(1763799990, tz=UTC)
    Message.objects.create(
        session=session, message_id="m_OUT", chat=PSID_JID, from_me=True, timestamp=sent_at
    )
    body = page_body(
        page_item(1763800000000, message={"mid": "m_1", "text": "hi"}),
        page_item(
            1763800001000, reaction={"mid": "m_OUT", "action": "react", "reaction": "love", "emoji": "❤"}
        ),
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
        page_item(1763800003000, postback={"mid": "m_3", "title": "Yes", "payload": "YES"}),
        page_item(1763800004000, delivery={"mids": ["m_OUT"], "watermark": 1763800004000}),
        page_item(1763800005000, read={"watermark": 1763800005000}),
        page_item(1763800006000, reaction={"mid": "m_OUT", "action": "unreact"}),
    )
    assert post_signed(meta_client, session, body).status_code == 200
    events = list(Event.objects.filter(session_id=session.pk).exclude(name="connected").order_by("sequence"))
    kinds = [(e.name, e.data.get("type") or e.data.get("status")) for e in events]
    assert kinds == [
        ("message", "text"),
        ("message", "reaction"),
        ("message", "sticker"),
        ("message", "button_reply"),
        ("message_ack", "delivered"),
        ("message_ack", "read"),
        ("message", "reaction"),
    ]
    assert events[1].data["reaction"] == {"messageId": "m_OUT", "emoji": "❤"}
    assert events[2].data["stickerId"] == "369239263222822"
    assert events[2].data["mediaUrl"] == "https://x.example/s.png"
    assert events[3].data["selectedId"] == "YES"
    assert events[6].data["reaction"] == {"messageId": "m_OUT", "emoji": ""}
    assert [e.event_ms for e in events] == [1763800000000 + i * 1000 for i in range(7)]
    assert Message.objects.get(message_id="m_OUT").status == "read"


def test_registered_and_instance_webhooks_carry_official_events_in_the_meta_envelope(
    meta_client, official_session
):
    session = official_session("messenger")
    Webhook.objects.create(
        account=session.account, session=session, url="http://127.0.0.1:9/hook", events=["message"]
    )
    configure(session, webhook_format="meta")
    body = page_body(page_item(1763800000000, message={"mid": "m_1", "text": "hi"}))
    assert post_signed(meta_client, session, body).status_code == 200
    event = Event.objects.get(session_id=session.pk, name="message")
    registered = Delivery.objects.get(event=event, kind=Delivery.Kind.REGISTERED)
    assert registered.payload["data"]["text"] == "hi"
    instance = Delivery.objects.get(event=event, kind=Delivery.Kind.INSTANCE)
    envelope = instance.payload
    validate_envelope(envelope)
    assert envelope["provider"] == "messenger" and envelope["official"] is True
    value = envelope["entry"][0]["changes"][0]["value"]
    assert value["messages"][0]["text"] == {"body": "hi"}
    assert value["contacts"][0]["fb_id"] == PSID
    assert value["ponte"]["seq"] == event.sequence and value["ponte"]["event_ms"] == 1763800000000


def test_a_malformed_signed_body_is_400(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    from tests.messaging.graph_standin import sign

    response = meta_client.post(
        f"/channels/whatsapp_cloud/{session.pk}/webhook",
        data=b"{not json",
        content_type="application/json",
        HTTP_X_HUB_SIGNATURE_256=sign(b"{not json"),
    )
    assert response.status_code == 400


def test_cloud_api_events_are_whatsapp_official_in_the_meta_envelope(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    configure(session, webhook_format="meta")
    assert (
        post_signed(
            meta_client, session, cloud_body(messages=[cloud_message("text", {"body": "oi"})])
        ).status_code
        == 200
    )
    event = Event.objects.get(session_id=session.pk, name="message")
    envelope = Delivery.objects.get(event=event, kind=Delivery.Kind.INSTANCE).payload
    validate_envelope(envelope)
    assert envelope["provider"] == "whatsapp" and envelope["official"] is True
    value = envelope["entry"][0]["changes"][0]["value"]
    assert value["messaging_product"] == "whatsapp"
    assert value["contacts"][0] == {"profile": {"name": "Maria"}, "wa_id": CUSTOMER}
    assert value["messages"][0]["from"] == CUSTOMER and "ponte" not in value


def test_a_body_meta_posts_again_reports_each_message_once(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    body = cloud_body(messages=[cloud_message("text", {"body": "oi"})])
    assert post_signed(meta_client, session, body).status_code == 200
    assert post_signed(meta_client, session, body).status_code == 200
    assert Event.objects.filter(session_id=session.pk, name="message").count() == 1
