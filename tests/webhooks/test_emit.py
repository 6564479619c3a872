"""emit(): the event and one delivery per matching webhook, in the caller's transaction."""

from __future__ import annotations

import pytest
from django.db import transaction

from messaging.models import Session
from webhooks import lookups
from webhooks.models import Delivery, Event, Webhook
from webhooks.services import emit

pytestmark = pytest.mark.django_db


def _hook(session, events, **kwargs) -> Webhook:
    return Webhook.objects.create(
        account=session.account, session=session, url="https://93.184.215.14/hook", events=events, **kwargs
    )


def test_one_delivery_per_webhook_listening_to_the_event(session, account):
    listening = _hook(session, ["message", "qr"], retry_count=7)
    also = _hook(session, ["message"])
    _hook(session, ["qr"])
    other_session = Session.objects.create(account=account, name="other")
    _hook(other_session, ["message"])

    event = emit(session_id=session.id, name="message", data={"id": "M1", "text": "hi"}, chat="5511@s")

    deliveries = Delivery.objects.filter(event=event).order_by("id")
    assert [d.webhook_id for d in deliveries] == [listening.id, also.id]
    first = deliveries[0]
    assert first.status == Delivery.Status.PENDING
    assert first.max_attempts == 7
    assert first.timeout_seconds == 10
    assert first.target_url == listening.url
    assert first.dispatch_id.startswith("msg_")
    assert deliveries[0].dispatch_id != deliveries[1].dispatch_id


def test_the_envelope_carries_the_seeds_message_fields(session):
    _hook(session, ["message"])
    event = emit(
        session_id=session.id,
        name="messages",
        data={"id": "M1", "text": "olá", "sender": "5511999@s.whatsapp.net", "timestamp": 1700000000},
        chat="5511999@s.whatsapp.net",
        event_ms=1700000000123,
    )
    payload = Delivery.objects.get(event=event).payload
    assert payload["event"] == "message"
    assert payload["session_id"] == str(session.id)
    assert payload["timestamp"] == "2023-11-14T22:13:20.123Z"
    data = payload["data"]
    for name in ("id", "chat", "chatId", "remoteJid", "sender", "pushName", "text", "timestamp", "fromMe"):
        assert name in data
    assert data["type"] == "text"
    assert data["mediaUrl"] is None
    assert data["chatId"] == data["remoteJid"] == "5511999@s.whatsapp.net"
    assert data["text"] == "olá"


def test_aliases_are_emitted_under_the_canonical_name(session):
    hook = _hook(session, ["connected"])
    event = emit(session_id=session.id, name="session.connected", data={"jid": "x"})
    assert event.name == "connected"
    assert Delivery.objects.get(event=event).webhook == hook
    assert Delivery.objects.get(event=event).payload["event"] == "connected"


def test_nothing_is_written_when_the_caller_rolls_back(session):
    _hook(session, ["message"])
    with pytest.raises(RuntimeError), transaction.atomic():
        emit(session_id=session.id, name="message", data={"id": "M1"})
        raise RuntimeError("the caller failed after emitting")
    assert not Event.objects.exists()
    assert not Delivery.objects.exists()


def test_delivery_hints_are_published_only_on_commit(session, django_capture_on_commit_callbacks):
    _hook(session, ["message"])
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        emit(session_id=session.id, name="message", data={"id": "M1"})
        assert Delivery.objects.count() == 1
    # The target's hint, and the event's publication to the live socket (webhooks.live.broadcast); the
    # lookups' own (the webhook was written in this transaction: webhooks.lookups) are not sends.
    sends = [c for c in callbacks if getattr(c, "__self__", None) is not lookups.session_targets]
    assert len(sends) == 2


def test_events_without_listeners_write_no_delivery(session):
    _hook(session, ["qr"])
    emit(session_id=session.id, name="presence", data={})
    assert Event.objects.count() == 1
    assert not Delivery.objects.exists()


def test_events_count_a_sequence_per_chat(session):
    first = emit(session_id=session.id, name="message", data={}, chat="a")
    second = emit(session_id=session.id, name="message", data={}, chat="a")
    other = emit(session_id=session.id, name="message", data={}, chat="b")
    assert (first.sequence, second.sequence, other.sequence) == (1, 2, 1)


def test_an_engine_message_reaches_the_outbox_with_the_seeds_fields(session):
    from messaging.engines.events import event_from_data
    from messaging.services.events import engine_event_receive

    _hook(session, ["message"])
    report = {
        "id": "3EB0AAAABBBBCCCC",
        "chat": "5511988887777@s.whatsapp.net",
        "chatId": "5511988887777@s.whatsapp.net",
        "remoteJid": "5511988887777@s.whatsapp.net",
        "sender": "5511988887777@s.whatsapp.net",
        "pushName": "Ana",
        "text": "bom dia",
        "timestamp": 1763784000,
        "fromMe": False,
        "type": "text",
        "mediaUrl": None,
    }
    engine_event_receive(str(session.id), event_from_data("message", report))
    payload = Delivery.objects.get().payload
    assert payload["event"] == "message"
    # The sender's two ids come along: the phone JID it is, no linked id known (messaging.services.lids).
    assert payload["data"] == {**report, "senderPn": report["sender"], "senderLid": None}


def test_the_event_and_its_deliveries_written_together_carry_their_own_keys(session):
    hooks = [_hook(session, ["message"]) for _ in range(3)]

    with transaction.atomic():
        event = emit(session_id=session.id, name="message", data={"id": "M9", "text": "hi"}, chat="5511@s")

    stored = {d.webhook_id: (d.pk, d.dispatch_id) for d in Delivery.objects.filter(event=event)}
    assert set(stored) == {hook.id for hook in hooks}
    assert len({pk for pk, _ in stored.values()}) == 3
    assert Event.objects.filter(pk=event.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_event_and_its_deliveries_are_written_whole(session, account):
    """Top level (a worker, a command): one statement on PostgreSQL, a transaction of its own elsewhere;
    either way the event and every delivery are there at once, numbered in order, hinted after."""
    _hook(session, ["message"])
    _hook(session, ["message"])
    first = emit(session_id=session.id, name="message", data={"id": "M1", "text": "hi"}, chat="c")
    second = emit(session_id=session.id, name="message", data={"id": "M2", "text": "hi"}, chat="c")
    assert (first.sequence, second.sequence) == (1, 2)
    for event in (first, second):
        assert Delivery.objects.filter(event=event).count() == 2
    assert Event.objects.filter(session=session).count() == 2
