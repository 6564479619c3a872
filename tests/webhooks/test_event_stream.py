"""The event stream on RabbitMQ: every event published from the outbox, by real workers, to the local
broker (PONTE_TEST_AMQP_URL), consumed here with kombu from a queue bound to the exchange with `#`.

Each test publishes to an exchange of its own, so runs beside each other never see each other's events.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from kombu import Connection, Exchange, Queue

from tests.webhooks.support import wait_for
from webhooks.models import Delivery, StreamJob
from webhooks.registered.services import webhook_create
from webhooks.services import emit
from webhooks.stream import jobs

AMQP_URL = os.environ.get("PONTE_TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672//")


@dataclass
class Consumer:
    """A queue bound to the test's exchange with `#`: every message published there."""

    exchange_name: str
    messages: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.connection = Connection(AMQP_URL, connect_timeout=5)
        self.channel = self.connection.channel()
        self.exchange = Exchange(self.exchange_name, type="topic", durable=True)(self.channel)
        self.exchange.declare()
        self.queue = Queue(f"{self.exchange_name}.all", exchange=self.exchange, routing_key="#")(self.channel)
        self.queue.declare()

    def take(self) -> list[Any]:
        """Everything that arrived since the last call, added to `messages`."""
        while (message := self.queue.get(no_ack=True)) is not None:
            self.messages.append(message)
        return self.messages

    def wait(self, count: int, timeout: float = 60) -> list[Any]:
        wait_for(lambda: len(self.take()) >= count, timeout=timeout, what=f"{count} stream messages")
        return self.messages

    def close(self) -> None:
        self.queue.delete()
        self.exchange.delete()
        self.connection.release()


@pytest.fixture
def stream(settings) -> Iterator[Consumer]:
    """The stream on for this process (emit() writes its jobs) with an exchange of the test's own."""
    name = f"ponte.events.test-{uuid.uuid4().hex[:10]}"
    settings.PONTE_EVENT_STREAM_URL = AMQP_URL
    settings.PONTE_EVENT_STREAM_EXCHANGE = name
    consumer = Consumer(name)
    yield consumer
    consumer.close()


def _stream_env(consumer: Consumer, url: str = AMQP_URL) -> dict[str, str]:
    return {
        "PONTE_EVENT_STREAM_URL": url,
        "PONTE_EVENT_STREAM_EXCHANGE": consumer.exchange_name,
        "PONTE_EVENT_STREAM_TIMEOUT_SECONDS": "1",
    }


def _closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"amqp://guest:guest@127.0.0.1:{port}//"


def _ids_per_chat(messages: list[Any]) -> dict[str, list[str]]:
    chats: dict[str, list[str]] = {}
    for message in messages:
        data = json.loads(message.body)["data"]
        chats.setdefault(data["chat"], []).append(data["id"])
    return chats


@pytest.mark.django_db
def test_no_stream_job_is_written_while_the_stream_is_off(session):
    emit(session_id=session.id, name="message", data={"id": "OFF"}, chat="5511@s")
    assert not StreamJob.objects.exists()


@pytest.mark.django_db
def test_stream_metrics_count_events_waiting_to_be_published(stream, session):
    emit(session_id=session.id, name="message", data={"id": "G1"}, chat="5511@s")
    emit(session_id=session.id, name="connected", data={})
    readings = {reading.name: reading.values[()] for reading in jobs.collect()}
    assert readings["ponte_event_stream_waiting"] == 2
    assert readings["ponte_event_stream_queue_depth"] == 2
    assert readings["ponte_event_stream_dead_letters"] == 0


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_every_event_is_published_persistent_with_the_registered_webhook_body(
    start_worker, stream, session, receiver, allow_loopback
):
    start_worker(env=_stream_env(stream))
    webhook_create(account=session.account, session_id=session.id, url=receiver.url, events=["message"])
    emit(session_id=session.id, name="message", data={"id": "B1", "text": "olá"}, chat="5511@s")
    emit(session_id=session.id, name="connected", data={})  # no webhook listens: published all the same

    first, second = sorted(stream.wait(2), key=lambda m: m.delivery_info["routing_key"].endswith("message"))
    assert first.delivery_info["routing_key"] == f"{session.id}.connected"
    assert second.delivery_info["routing_key"] == f"{session.id}.message"
    for message in (first, second):
        assert message.properties["delivery_mode"] == 2
        assert message.content_type == "application/json"
        assert message.delivery_info["exchange"] == stream.exchange_name
    wait_for(lambda: receiver.received, what="the webhook delivery")
    assert json.loads(second.body) == json.loads(receiver.received[0].body)
    assert json.loads(second.body)["data"]["text"] == "olá"
    delivery = Delivery.objects.get(webhook__isnull=False)
    assert json.loads(second.body) == delivery.payload
    wait_for(lambda: not StreamJob.objects.exclude(status="published").exists(), what="jobs marked published")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_order_is_kept_per_conversation_with_two_workers(start_worker, stream, session):
    start_worker(env=_stream_env(stream))
    start_worker(env=_stream_env(stream))
    chats = ["5511@s", "5522@s", "5533@s"]
    sent: dict[str, list[str]] = {chat: [] for chat in chats}
    for number in range(45):
        chat = chats[number % 3]
        sent[chat].append(f"M{number}")
        emit(session_id=session.id, name="message", data={"id": f"M{number}"}, chat=chat)

    messages = stream.wait(45)
    assert len(messages) == 45
    assert _ids_per_chat(messages) == sent


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_broker_outage_delays_events_and_loses_none(start_worker, stream, session):
    away = start_worker(env=_stream_env(stream, url=_closed_port_url()))
    sent = [f"O{number}" for number in range(12)]
    for event_id in sent:
        emit(session_id=session.id, name="message", data={"id": event_id}, chat="5544@s")

    # Tried and failed (the broker's port is closed), held in order behind the first.
    wait_for(
        lambda: StreamJob.objects.filter(status="failed", attempt_count__gte=2).exists(),
        what="failed publishes",
    )
    time.sleep(0.5)
    assert stream.take() == []
    assert StreamJob.objects.filter(status="published").count() == 0
    assert StreamJob.objects.exclude(status__in=["pending", "failed", "sending"]).count() == 0
    away.stop()

    start_worker(env=_stream_env(stream))  # the broker is back: the start-up sweep hints the waiting
    messages = stream.wait(12)
    assert _ids_per_chat(messages) == {"5544@s": sent}
    wait_for(lambda: StreamJob.objects.filter(status="published").count() == 12, what="jobs published")


@pytest.mark.django_db
def test_staff_resend_a_stream_dead_letter_from_the_admin(stream, session, admin_client):
    emit(session_id=session.id, name="message", data={"id": "D1"}, chat="5511@s")
    job = StreamJob.objects.get()
    StreamJob.objects.filter(pk=job.pk).update(status="dead", attempt_count=3, dead_at=timezone.now())
    assert admin_client.get("/admin/webhooks/streamjob/").status_code == 200

    reply = admin_client.post(
        "/admin/webhooks/streamjob/", {"action": "resend", "_selected_action": [job.pk]}
    )
    assert reply.status_code == 302
    job.refresh_from_db()
    assert (job.status, job.max_attempts, job.dead_at) == ("pending", 4, None)  # one more attempt


@pytest.mark.django_db
def test_published_jobs_are_purged_after_a_day_and_waiting_ones_never(stream, session):
    for event_id in ("P1", "P2", "P3"):
        emit(session_id=session.id, name="message", data={"id": event_id}, chat="5511@s")
    old, recent, waiting = StreamJob.objects.order_by("id")
    now = timezone.now()
    StreamJob.objects.filter(pk=old.pk).update(status="published", published_at=now - timedelta(days=2))
    StreamJob.objects.filter(pk=recent.pk).update(status="published", published_at=now - timedelta(hours=2))

    assert jobs.QUEUE.purge() == 1
    assert set(StreamJob.objects.values_list("pk", flat=True)) == {recent.pk, waiting.pk}
