"""`GET /instances/<instance_key>/instance/webhook/statistics`: counted over 7 days from the outbox rows
after a scripted mix of real outcomes, in a fixed number of queries."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.webhooks.instance_support import configure, deliveries_of, instance_session, message
from webhooks.models import Delivery, Webhook
from webhooks.outbox import drains as outbox

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(account):
    return instance_session(account)


@pytest.fixture
def client() -> APIClient:
    return APIClient()


def _stats(client, session) -> dict:
    response = client.get(f"/instances/{session.instance_key}/instance/webhook/statistics")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == 200
    return body["data"]


def _new(session, text: str = "hi") -> Delivery:
    """A delivery that waits until `_attempt` makes it due (an attempt drains every due delivery of
    the target, and these tests script one attempt at a time)."""
    (delivery,) = deliveries_of(session, "message", message(text=text))
    Delivery.objects.filter(event=delivery.event).update(next_attempt_at=timezone.now() + timedelta(hours=1))
    return delivery


def _attempt(delivery: Delivery) -> str:
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    return outbox.delivery_attempt(delivery_id=delivery.pk)


def test_a_session_never_configured_has_empty_statistics(client, session):
    assert _stats(client, session) == {
        "official": False,
        "webhook": {"allowNumber": "all", "webhookFormat": "meta", "configured": [], "anyUrl": False},
        "delivery": {
            "queued": 0,
            "attempts": 0,
            "ok": 0,
            "clientError": 0,
            "failed": 0,
            "avgMs": 0,
            "last": None,
            "recent": [],
        },
        "queue": {"waiting": 0, "active": 0, "failed": 0, "scope": "worker-global"},
    }


def test_statistics_count_a_scripted_mix_of_outcomes(
    client, session, receiver, allow_loopback, make_receiver
):
    configure(session, webhook_message=receiver.url, webhook_qrcode=receiver.url)
    # In order of attempts: ok; 404 (client error, final); 500 then ok; 429 (waits for a retry);
    # a refused connection (waits for a retry); and one never attempted.
    receiver.statuses = [200, 404, 500, 200, 429]
    ok, client_error, flaky, throttled = (_new(session, str(n)) for n in range(4))
    assert _attempt(ok) == "delivered"
    assert _attempt(client_error) == "dead"
    assert _attempt(flaky) == "retry"
    assert _attempt(flaky) == "delivered"
    assert _attempt(throttled) == "retry"
    closed = _new(session, "closed")
    Delivery.objects.filter(pk=closed.pk).update(target_url="http://127.0.0.1:9/closed")
    assert _attempt(closed) == "retry"
    _new(session, "waiting")

    # Not counted: another session's deliveries, registered-webhook deliveries, and rows older than 7 days.
    other = instance_session(session.account, name="other")
    configure(other, webhook_message=receiver.url)
    _attempt(_new(other))
    Webhook.objects.create(account=session.account, session=session, url=receiver.url, events=["message"])
    old = _new(session, "registered too")  # the instance delivery of this event is the one returned
    registered = Delivery.objects.get(event=old.event, kind=Delivery.Kind.REGISTERED)
    _attempt(registered)
    Delivery.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=8))
    _attempt(old)

    data = _stats(client, session)
    delivery = data["delivery"]
    assert delivery["queued"] == 3  # throttled, closed (retries due later) and the one never attempted
    assert delivery["attempts"] == 6
    assert delivery["ok"] == 2
    assert delivery["clientError"] == 1
    assert delivery["failed"] == 3  # 500, 429, refused connection
    assert delivery["attempts"] == delivery["ok"] + delivery["clientError"] + delivery["failed"]
    assert isinstance(delivery["avgMs"], int) and delivery["avgMs"] >= 0

    # The newest deliveries first, each with the answer to its latest attempt.
    recent = delivery["recent"]
    assert [(r["status"], r["outcome"], r["attempts"], r["state"]) for r in recent] == [
        (None, "queued", 0, "pending"),
        (None, "failed", 1, "failed"),  # refused connection, retry due later
        (429, "failed", 1, "failed"),
        (200, "ok", 2, "delivered"),
        (404, "clientError", 1, "dead"),
        (200, "ok", 1, "delivered"),
    ]
    assert recent[0]["duration"] is None and recent[0]["error"] is None
    assert recent[1]["error"].startswith("connection error")
    assert recent[3]["error"] is None
    assert {r["event"] for r in recent} == {"message"}
    assert all(isinstance(r["duration"], int) for r in recent[1:])
    assert delivery["last"] == {  # the latest attempt: the refused connection
        "ts": recent[1]["ts"],
        "status": None,
        "ms": recent[1]["duration"],
        "outcome": "failed",
    }
    assert data["webhook"] == {
        "allowNumber": "all",
        "webhookFormat": "meta",
        "configured": ["webhookMessage", "webhookQrCode"],
        "anyUrl": True,
    }
    # The queue counts every delivery the workers serve, whatever the session or kind: throttled,
    # closed and the one never attempted wait; the 404 is a dead letter; nothing is being sent now.
    assert data["queue"] == {"waiting": 3, "active": 0, "failed": 1, "scope": "worker-global"}
    Delivery.objects.filter(pk=registered.pk).update(status=Delivery.Status.SENDING)
    other_waiting = _new(other, "waits")
    queue = _stats(client, session)["queue"]
    assert (queue["waiting"], queue["active"]) == (4, 1)
    assert _stats(client, other)["delivery"]["queued"] == 1
    assert other_waiting.session_id == other.id


def test_recent_is_capped_at_the_last_20(client, session, receiver, allow_loopback):
    configure(session, webhook_message=receiver.url)
    deliveries = [_new(session, str(n)) for n in range(23)]
    for delivery in deliveries:
        assert _attempt(delivery) == "delivered"
    delivery = _stats(client, session)["delivery"]
    assert delivery["attempts"] == delivery["ok"] == 23
    assert len(delivery["recent"]) == 20
    timestamps = [row["ts"] for row in delivery["recent"]]
    assert timestamps == sorted(timestamps, reverse=True)
    # The 20 newest deliveries: the three oldest dropped out.
    assert [row["id"] for row in delivery["recent"]] == [d.dispatch_id for d in reversed(deliveries[3:])]
    assert delivery["last"]["ts"] == timestamps[0]


def test_statistics_take_a_fixed_number_of_queries(
    client, session, receiver, allow_loopback, django_assert_num_queries, settings
):
    # The first delivery's retry must not fall due while the thirteen are sent (a loaded machine takes
    # longer than the suite's scaled-down delay): it would be attempted again in a later batch.
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 100
    configure(session, webhook_message=receiver.url)
    receiver.statuses = [500, 404]
    for n in range(3):
        _attempt(_new(session, str(n)))
    url = f"/instances/{session.instance_key}/instance/webhook/statistics"
    # Session + configuration, counters, recent deliveries, worker-global queue; plus the savepoint
    # and its release that the request's transaction (ATOMIC_REQUESTS) makes inside the test's.
    queries = 4 + 2
    with django_assert_num_queries(queries):
        assert client.get(url).status_code == 200
    for n in range(10):
        _attempt(_new(session, f"more {n}"))
    with django_assert_num_queries(queries):
        assert client.get(url).json()["data"]["delivery"]["attempts"] == 13


def test_statistics_work_for_an_official_account(client, account):
    official = instance_session(account, provider="whatsapp", official=True, name="cloud")
    data = _stats(client, official)
    assert data["official"] is True


def test_an_unknown_instance_answers_404_never_500(client, session):
    response = client.get("/instances/unknown-instance/instance/webhook/statistics")
    assert response.status_code == 404
    assert response.json() == {
        "status": 404,
        "error": "INSTANCE_NOT_FOUND",
        "message": "Instance not found: no session has this instance key.",
    }
    session.delete()
    response = client.get(f"/instances/{session.instance_key}/instance/webhook/statistics")
    assert response.status_code == 404
