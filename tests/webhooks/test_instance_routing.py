"""Routing of instance webhooks: each event to its field's URL, or `webhookMessage` when that is empty;
own messages to `webhookMessageFromMe`; nothing while `allowWebhook` is false."""

from __future__ import annotations

import pytest
from django.db import transaction

from tests.webhooks.instance_support import (
    DEFAULT_URL,
    GROUP_JID,
    configure,
    deliveries_of,
    instance_session,
    message,
)
from webhooks.models import Delivery, Event, Webhook
from webhooks.outbox.policy import INSTANCE

pytestmark = pytest.mark.django_db

URLS = {
    "webhook_group": "http://127.0.0.1:9/group",
    "webhook_connection": "http://127.0.0.1:9/connection",
    "webhook_qrcode": "http://127.0.0.1:9/qrcode",
    "webhook_message_from_me": "http://127.0.0.1:9/from-me",
    "webhook_history": "http://127.0.0.1:9/history",
}


@pytest.fixture
def session(account):
    return instance_session(account)


def _target(session, name, data) -> str | None:
    deliveries = deliveries_of(session, name, data)
    assert len(deliveries) <= 1
    return deliveries[0].target_url if deliveries else None


ROUTES = [
    ("message", message(text="hi"), DEFAULT_URL),
    ("message", message(fromMe=True, text="mine"), URLS["webhook_message_from_me"]),
    ("message", message(chat=GROUP_JID, text="group"), URLS["webhook_group"]),
    (
        "message",
        message(chat=GROUP_JID, fromMe=True, text="mine in a group"),
        URLS["webhook_message_from_me"],
    ),
    ("message", message(isHistory=True, fromMe=True, text="old"), URLS["webhook_history"]),
    ("message_ack", {"id": "X", "chat": "5511988887777@s.whatsapp.net", "ack": 2}, DEFAULT_URL),
    (
        "group_join",
        {"group": GROUP_JID, "participants": ["5511988887777@s.whatsapp.net"]},
        URLS["webhook_group"],
    ),
    (
        "group_leave",
        {"group": GROUP_JID, "participants": ["5511988887777@s.whatsapp.net"]},
        URLS["webhook_group"],
    ),
    ("connected", {"jid": "5511900000001@s.whatsapp.net"}, URLS["webhook_connection"]),
    ("session.connected", {"jid": "5511900000001@s.whatsapp.net"}, URLS["webhook_connection"]),
    ("disconnected", {"reason": "logged_out"}, URLS["webhook_connection"]),
    ("health", {"status": "LIMITED"}, URLS["webhook_connection"]),
    ("qr", {"qr": "2@abc"}, URLS["webhook_qrcode"]),
    ("call", {"id": "C1", "from": "5511988887777@s.whatsapp.net"}, DEFAULT_URL),
    ("presence", {"chat": "5511988887777@s.whatsapp.net", "presence": "available"}, DEFAULT_URL),
]


@pytest.mark.parametrize(("name", "data", "url"), ROUTES, ids=[f"{r[0]}-{i}" for i, r in enumerate(ROUTES)])
def test_each_event_goes_to_its_own_fields_url(session, name, data, url):
    configure(session, **URLS)
    assert _target(session, name, data) == url


@pytest.mark.parametrize(("name", "data", "url"), ROUTES, ids=[f"{r[0]}-{i}" for i, r in enumerate(ROUTES)])
def test_an_empty_field_falls_back_to_webhook_message(session, name, data, url):
    configure(session)  # only webhookMessage
    assert _target(session, name, data) == DEFAULT_URL


def test_with_no_url_at_all_nothing_is_written(session):
    configure(session, webhook_message="")
    assert _target(session, "message", message(text="hi")) is None
    # A field of its own still works without the default.
    configure(session, webhook_message="", webhook_qrcode=URLS["webhook_qrcode"])
    assert _target(session, "qr", {"qr": "2@x"}) == URLS["webhook_qrcode"]
    assert _target(session, "message", message(text="hi")) is None


def test_nothing_is_sent_while_allow_webhook_is_false(session):
    configure(session, allow_webhook=False, **URLS)
    for name, data, _ in ROUTES:
        assert _target(session, name, data) is None
    assert Event.objects.filter(session=session).count() == len(ROUTES)  # events are still recorded


def test_a_session_without_configuration_sends_nothing(session):
    assert _target(session, "message", message(text="hi")) is None


def test_chat_actions_blocks_and_labels_go_to_the_message_url(session):
    configure(session)
    chat = "5511988887777@s.whatsapp.net"
    for name, data in (
        ("chat_archive", {"chat": chat, "archived": True}),
        ("chat_pin", {"chat": chat, "pinned": True}),
        ("contact_block", {"jid": chat, "blocked": True}),
        ("label_edit", {"labelId": "1", "name": "VIP", "color": 2}),
    ):
        assert _target(session, name, data) == DEFAULT_URL, name


def test_allow_number_forwards_only_the_listed_numbers_messages(session):
    configure(session, allow_number="5511988887777,5511977776666")
    assert _target(session, "message", message(text="listed")) == DEFAULT_URL
    other = "5511911112222@s.whatsapp.net"
    assert _target(session, "message", message(chat=other, sender=other, text="not listed")) is None
    # Other events are not filtered by number.
    assert _target(session, "qr", {"qr": "2@x"}) == DEFAULT_URL


def test_an_instance_delivery_uses_the_instance_policy(session):
    configure(session)
    (delivery,) = deliveries_of(session, "message", message(text="hi"))
    assert delivery.kind == Delivery.Kind.INSTANCE
    assert delivery.webhook is None
    assert delivery.max_attempts == INSTANCE.default_attempts == 5
    assert delivery.timeout_seconds == INSTANCE.timeout_seconds == 8.0
    assert delivery.status == Delivery.Status.PENDING


def test_registered_and_instance_webhooks_both_receive_the_event(session):
    configure(session)
    Webhook.objects.create(
        account=session.account, session=session, url="http://127.0.0.1:9/registered", events=["message"]
    )
    from webhooks.services import emit

    event = emit(session_id=session.id, name="message", data=message(text="both"))
    kinds = sorted(Delivery.objects.filter(event=event).values_list("kind", flat=True))
    assert kinds == ["instance", "registered"]


def test_a_rolled_back_caller_writes_no_instance_delivery(session):
    configure(session)
    from webhooks.services import emit

    with pytest.raises(RuntimeError), transaction.atomic():
        emit(session_id=session.id, name="message", data=message(text="never"))
        raise RuntimeError("the caller fails")
    assert not Delivery.objects.exists()


def test_malformed_event_data_does_not_fail_the_caller(session):
    configure(session)
    event_count = Event.objects.count()
    assert (
        _target(
            session, "message", message(type="location", location={"latitude": "north", "longitude": "east"})
        )
        is None
    )
    assert Event.objects.count() == event_count + 1
