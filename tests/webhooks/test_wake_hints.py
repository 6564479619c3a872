"""A delivery's hint due now is a wake-up on the Redis list a worker's listener pops (jobs.wakeups), not a
Celery message; without the list (Redis away, the lists off) it is the Celery message it always was. The
default cache here is a private redis-server a test may stop."""

from __future__ import annotations

import json

import pytest
import redis
from celery.signals import before_task_publish
from django.core.cache import cache

from webhooks.models import Delivery, Webhook
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
