"""A delivery's hint due now is a wake-up on the Redis list a worker's listener pops (jobs.wakeups), not a
Celery message; without the list (Redis away, the lists off) it is the Celery message it always was. The
default cache here is a private redis-server a test may stop."""

from __future__ import annotations

import json
import threading

import pytest
import redis
from celery.signals import before_task_publish
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from webhooks.models import Delivery, Webhook
from webhooks.outbox import drains, throttle
from webhooks.outbox.hints import DELIVER_TASK
from webhooks.services import emit

pytestmark = pytest.mark.django_db

TARGET = "https://93.184.215.14/hook"


@pytest.fixture
def celery_hints():
    published: list[list] = []

    def record(sender=None, body=None, **kwargs) -> None:
        if sender == DELIVER_TASK:
            published.append(list(body[0]))

    before_task_publish.connect(record, weak=False)
    yield published
    before_task_publish.disconnect(record)


def _wake_ups(server) -> list[list]:
    client = redis.Redis.from_url(server.url)
    return [json.loads(raw)["args"] for raw in client.lrange(cache.make_key(f"wake:{DELIVER_TASK}"), 0, -1)]


def _emit(session, django_capture_on_commit_callbacks, data_id: str) -> Delivery:
    with django_capture_on_commit_callbacks(execute=True):
        event = emit(session_id=session.id, name="message", data={"id": data_id})
    return Delivery.objects.get(event=event)


def test_a_delivery_due_now_wakes_a_worker_by_the_list_not_by_celery(
    session, private_redis_cache, celery_hints, django_capture_on_commit_callbacks
) -> None:
    Webhook.objects.create(account=session.account, session=session, url=TARGET, events=["message"])

    delivery = _emit(session, django_capture_on_commit_callbacks, "M1")
    _emit(session, django_capture_on_commit_callbacks, "M2")  # the target's hint is still waiting

    assert _wake_ups(private_redis_cache) == [[delivery.pk, TARGET]]
    assert celery_hints == []


def test_without_the_list_a_delivery_due_now_is_a_celery_hint(
    session, private_redis_cache, celery_hints, settings, django_capture_on_commit_callbacks
) -> None:
    settings.PONTE_WAKE_LIST = False
    Webhook.objects.create(account=session.account, session=session, url=TARGET, events=["message"])

    delivery = _emit(session, django_capture_on_commit_callbacks, "M1")

    assert _wake_ups(private_redis_cache) == []
    assert celery_hints == [[delivery.pk, TARGET]]


def test_with_redis_away_a_delivery_due_now_is_a_celery_hint(
    session, private_redis_cache, celery_hints, django_capture_on_commit_callbacks
) -> None:
    Webhook.objects.create(account=session.account, session=session, url=TARGET, events=["message"])
    private_redis_cache.stop()  # the cache's server; this process's broker is another

    delivery = _emit(session, django_capture_on_commit_callbacks, "M1")

    assert celery_hints == [[delivery.pk, TARGET]]


def _looks_once_more(captured) -> bool:
    """Whether the drain asked if anything more was due after it lowered the flag: the store's due query
    (PostgreSQL's prepared `SELECT EXISTS`, the ORM's `.exists()` elsewhere)."""
    return any(
        query["sql"].startswith(("SELECT EXISTS", 'SELECT 1 AS "a" FROM "webhooks_delivery"'))
        for query in captured.captured_queries
    )


def test_a_drain_that_finds_nothing_more_looks_once_more_in_two_redis_round_trips(
    session, private_redis_cache, make_receiver, allow_loopback, django_capture_on_commit_callbacks
) -> None:
    receiver = make_receiver()
    Webhook.objects.create(account=session.account, session=session, url=receiver.url, events=["message"])
    warm = _emit(session, django_capture_on_commit_callbacks, "M0")  # Redis learns the scripts
    assert drains.delivery_attempt(delivery_id=warm.pk, target_url=receiver.url) == "delivered"
    delivery = _emit(session, django_capture_on_commit_callbacks, "M1")  # raises the flag, one wake-up

    before = private_redis_cache.command_calls()
    with CaptureQueriesContext(connection) as captured:
        assert drains.delivery_attempt(delivery_id=delivery.pk, target_url=receiver.url) == "delivered"
    after = private_redis_cache.command_calls()

    # The look after the flag comes down finds what became due without a commit too (a lapsed claim).
    assert _looks_once_more(captured)
    # Two round trips to Redis: the slot with the slow mark (one script: SET NX, GET), the slot and the
    # flag given back (one DEL).
    ran = {name: after[name] - before.get(name, 0) for name in after if after[name] != before.get(name, 0)}
    assert ran == {"evalsha": 1, "set": 1, "get": 1, "del": 1}, ran
    assert cache.get(throttle.hint_flag(receiver.url)) is None  # down: the next event brings a wake-up


@pytest.mark.django_db(transaction=True)
def test_an_event_committed_while_the_drain_posts_is_sent_by_that_drain_without_a_wake_up(
    session, private_redis_cache, make_receiver, allow_loopback
) -> None:
    receiver = make_receiver(hang=0.5)
    Webhook.objects.create(account=session.account, session=session, url=receiver.url, events=["message"])
    emit(session_id=session.id, name="message", data={"id": "M1"})  # committed: its wake-up is pushed
    first = Delivery.objects.get(target_url=receiver.url)
    # While M1's POST is out (after the drain's last claim), M2 is committed: it finds the flag up and
    # marks it instead of pushing a wake-up of its own.
    during = threading.Thread(
        target=lambda: (
            receiver.arrived.wait(5)
            and emit(session_id=session.id, name="message", data={"id": "M2"})
            and connection.close()
        )
    )
    during.start()
    assert drains.delivery_attempt(delivery_id=first.pk, target_url=receiver.url) == "delivered"
    during.join()

    assert [json.loads(r.body)["data"]["id"] for r in receiver.received] == ["M1", "M2"]
    assert _wake_ups(private_redis_cache) == [[first.pk, receiver.url]]  # M1's only
    assert set(Delivery.objects.values_list("status", flat=True)) == {Delivery.Status.DELIVERED}
