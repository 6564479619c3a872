"""A webhook's `ordering`: "parallel" (the default) or "fifo", where a chat's next event waits until the
previous one is delivered or dead-lettered while other chats (and events without a chat) do not wait
(webhooks.outbox.fifo)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Delivery
from webhooks.outbox import deliveries as outbox
from webhooks.services import emit

pytestmark = pytest.mark.django_db

ANA = "5511911110000@s.whatsapp.net"
BIA = "5511922220000@s.whatsapp.net"


@pytest.fixture(autouse=True)
def _fast(settings, allow_loopback):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0


def _message(session, message_id: str, chat: str = ""):
    return emit(session_id=session.id, name="message", data={"id": message_id, "chat": chat}, chat=chat)


def _arrivals(receiver) -> list[tuple[str, str]]:
    """(message id, what the receiver answered first or again) in the order the POSTs arrived."""
    seen: set[str] = set()
    arrivals = []
    for request in receiver.received:
        message_id = json.loads(request.body)["data"]["id"]
        arrivals.append((message_id, "again" if message_id in seen else "first"))
        seen.add(message_id)
    return arrivals


def _emit_two_chats(session) -> None:
    """Ana's three messages and Bia's two, interleaved; the receiver fails the first POST (Ana's first)."""
    for message_id, chat in (("A1", ANA), ("B1", BIA), ("A2", ANA), ("A3", ANA), ("B2", BIA)):
        _message(session, message_id, chat)


def test_a_fifo_chat_waits_for_its_failed_event_while_another_chat_goes_on(
    keyed_client, admin_key, session, make_receiver
):
    receiver = make_receiver(statuses=[500])
    hook = register(keyed_client(admin_key), session, receiver.url, ordering="fifo")
    assert hook["ordering"] == "fifo"
    _emit_two_chats(session)
    # Ana's later events wait (queued: not claimable, not counted); Bia's first is on its way.
    statuses = dict(Delivery.objects.values_list("payload__data__id", "status"))
    assert statuses == {"A1": "pending", "B1": "pending", "A2": "queued", "A3": "queued", "B2": "queued"}
    send_due()
    arrivals = _arrivals(receiver)
    ana = [a for a in arrivals if a[0].startswith("A")]
    assert ana == [("A1", "first"), ("A1", "again"), ("A2", "first"), ("A3", "first")]
    assert receiver.received[0].body and json.loads(receiver.received[0].body)["data"]["id"] == "A1"
    # Bia's first event was not held back behind Ana's failed one.
    assert arrivals.index(("B1", "first")) < arrivals.index(("A1", "again"))
    assert [a for a in arrivals if a[0].startswith("B")] == [("B1", "first"), ("B2", "first")]
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}


def test_a_parallel_webhook_sends_a_chats_later_events_before_its_failed_one_is_retried(
    keyed_client, admin_key, session, make_receiver
):
    receiver = make_receiver(statuses=[500])
    hook = register(keyed_client(admin_key), session, receiver.url)
    assert hook["ordering"] == "parallel"
    _emit_two_chats(session)
    assert set(Delivery.objects.values_list("status", flat=True)) == {"pending"}
    send_due()
    arrivals = _arrivals(receiver)
    assert arrivals.index(("A2", "first")) < arrivals.index(("A1", "again"))


def test_a_dead_letter_releases_the_chats_next_event(keyed_client, admin_key, session, make_receiver):
    receiver = make_receiver(statuses=[500])
    register(keyed_client(admin_key), session, receiver.url, ordering="fifo", retryCount=1)
    _message(session, "A1", ANA)
    _message(session, "A2", ANA)
    send_due()
    assert [a[0] for a in _arrivals(receiver)] == ["A1", "A2"]
    statuses = dict(Delivery.objects.values_list("payload__data__id", "status"))
    assert statuses == {"A1": "dead", "A2": "delivered"}


def test_events_without_a_chat_are_never_queued(keyed_client, admin_key, session, make_receiver):
    receiver = make_receiver(statuses=[500])
    register(keyed_client(admin_key), session, receiver.url, ordering="fifo")
    _message(session, "S1")
    _message(session, "S2")
    assert set(Delivery.objects.values_list("status", flat=True)) == {"pending"}


def test_the_sweeper_releases_a_chat_left_queued_by_a_race(keyed_client, admin_key, session, make_receiver):
    receiver = make_receiver()
    register(keyed_client(admin_key), session, receiver.url, ordering="fifo")
    _message(session, "A1", ANA)
    _message(session, "A2", ANA)
    # The race: A1 finished between emit()'s check for A2 and its commit, so no release saw A2.
    Delivery.objects.filter(payload__data__id="A1").update(status="delivered")
    Delivery.objects.filter(payload__data__id="A2").update(created_at=timezone.now() - timedelta(minutes=5))
    outbox.deliveries_sweep(grace_seconds=60)
    assert Delivery.objects.get(payload__data__id="A2").status == "pending"
    send_due()
    assert [a[0] for a in _arrivals(receiver)] == ["A2"]


def test_a_queued_delivery_with_an_earlier_one_on_its_way_stays_queued_after_a_sweep(
    keyed_client, admin_key, session
):
    register(keyed_client(admin_key), session, "https://93.184.215.14/hook", ordering="fifo")
    _message(session, "A1", ANA)
    _message(session, "A2", ANA)
    Delivery.objects.update(created_at=timezone.now() - timedelta(minutes=5))
    outbox.deliveries_sweep(grace_seconds=60)
    statuses = dict(Delivery.objects.values_list("payload__data__id", "status"))
    assert statuses == {"A1": "pending", "A2": "queued"}


def test_ordering_is_checked_when_written_and_can_be_patched(keyed_client, admin_key, session):
    client = keyed_client(admin_key)
    body = {"sessionId": str(session.id), "url": "https://93.184.215.14/hook", "events": ["message"]}
    reply = client.post("/gateway/webhooks", {**body, "ordering": "lifo"}, format="json")
    assert reply.status_code == 400
    assert "ordering" in json.dumps(reply.json())
    hook = register(client, session, "https://93.184.215.14/hook")
    assert patch(client, hook["id"], ordering="sometimes").status_code == 400
    reply = patch(client, hook["id"], ordering="fifo")
    assert reply.status_code == 200 and reply.json()["ordering"] == "fifo"
    assert client.get(f"/gateway/webhooks/{hook['id']}").json()["ordering"] == "fifo"


def test_a_fifo_webhook_enabled_again_sends_each_chats_held_events_in_order(
    keyed_client, admin_key, session, make_receiver
):
    receiver = make_receiver(statuses=[500, 500])  # the first two POSTs: S1's and one chat's first
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, ordering="fifo")
    assert patch(client, hook["id"], status="disabled").status_code == 200
    for message_id, chat in (("A1", ANA), ("A2", ANA), ("B1", BIA), ("S1", "")):
        _message(session, message_id, chat)
    assert set(Delivery.objects.values_list("status", flat=True)) == {"held"}
    assert patch(client, hook["id"], status="active").status_code == 200
    statuses = dict(Delivery.objects.values_list("payload__data__id", "status"))
    assert statuses == {"A1": "pending", "A2": "queued", "B1": "pending", "S1": "pending"}
    send_due()
    ana = [message_id for message_id, _ in _arrivals(receiver) if message_id.startswith("A")]
    assert ana in (["A1", "A1", "A2"], ["A1", "A2"])  # A2 after A1, however many tries A1 took
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}


def test_disabling_a_fifo_webhook_keeps_its_queued_deliveries_held(keyed_client, admin_key, session):
    client = keyed_client(admin_key)
    hook = register(client, session, "https://93.184.215.14/hook", ordering="fifo")
    _message(session, "A1", ANA)
    _message(session, "A2", ANA)
    assert patch(client, hook["id"], status="disabled").status_code == 200
    statuses = dict(Delivery.objects.values_list("payload__data__id", "status"))
    assert statuses == {"A1": "dead", "A2": "held"}
