"""What an official channel does its own way is a method of the engine contract (decision record 0020):
the services call the session's engine, never a table filled at start-up; other engines keep the
contract's defaults."""

from __future__ import annotations

import pytest

from messaging.channels.engine import GraphChannelEngine
from messaging.models import Message, Session
from messaging.services.engine import engine_for
from webhooks.models import Event

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988887777"
CUSTOMER_JID = f"{CUSTOMER}@s.whatsapp.net"


@pytest.fixture
def cloud(official_session) -> Session:
    return official_session("whatsapp_cloud")


def test_a_token_refused_on_a_read_receipt_disconnects_the_official_session(admin_client, graph, cloud):
    Message.objects.create(
        session=cloud, message_id="wamid.IN1", chat=CUSTOMER_JID, sender=CUSTOMER_JID, from_me=False
    )
    graph.tokens.clear()  # the token was revoked at Meta
    body = {"sessionId": str(cloud.pk), "chatId": CUSTOMER, "messageIds": ["wamid.IN1"]}
    response = admin_client.post("/api/chats/read", body, format="json")
    assert response.status_code == 409 and response.json()["status"] == "disconnected"
    cloud.refresh_from_db()
    assert cloud.status == Session.Status.DISCONNECTED
    assert "access token refused" in cloud.channel.disconnect_reason
    assert Event.objects.filter(session_id=cloud.pk, name="disconnected").count() == 1
    assert Message.objects.get(message_id="wamid.IN1").status != Message.Status.READ  # rolled back


def test_an_engine_without_revocable_credentials_records_nothing_when_told_of_a_refusal(session):
    events_before = Event.objects.filter(session_id=session.pk).count()
    engine_for(session).credentials_revoked(str(session.pk), "access token refused")
    session.refresh_from_db()
    assert session.status == Session.Status.CONNECTED
    assert Event.objects.filter(session_id=session.pk).count() == events_before


def test_a_revoked_token_reported_twice_disconnects_the_session_once(cloud):
    engine = engine_for(cloud)
    assert isinstance(engine, GraphChannelEngine)
    engine.credentials_revoked(str(cloud.pk), "access token refused: expired")
    engine.credentials_revoked(str(cloud.pk), "access token refused: expired")
    cloud.refresh_from_db()
    assert cloud.status == Session.Status.DISCONNECTED
    assert Event.objects.filter(session_id=cloud.pk, name="disconnected").count() == 1


def test_official_channels_are_named_by_their_engine_and_every_other_engine_plays_whatsapp(
    session, messenger
):
    assert engine_for(messenger).channel_name(messenger.provider) == "Messenger"
    assert engine_for(messenger).channel_name("whatsapp_cloud") == "WhatsApp Cloud API"
    assert engine_for(session).channel_name(session.provider) == "WhatsApp"
