"""Per-webhook rate limits (`rateLimit`): the gateway field, and real workers that never exceed it.

The limiter is the shared one the settings point at: Redis with REDIS_URL, else the database (the
embedded default), so the worker tests check whichever the suite runs on; the database window is also
checked directly, with two threads racing for places.
"""

from __future__ import annotations

import threading
import time

import pytest

from tests.webhooks.support import wait_for
from webhooks.models import Delivery, Webhook
from webhooks.outbox import rate_limit
from webhooks.registered.services import webhook_create
from webhooks.services import emit

URL = "https://93.184.215.14/hook"


def _create(client, session, **overrides):
    body = {"sessionId": str(session.id), "url": URL, "events": ["message"], **overrides}
    return client.post("/gateway/webhooks", body, format="json")


def _most_in_one_second(times: list[float]) -> int:
    """The largest number of arrivals in any one-second window [t, t + 1)."""
    times = sorted(times)
    return max(sum(1 for other in times[index:] if other < start + 1) for index, start in enumerate(times))


@pytest.mark.django_db
def test_rate_limit_is_null_unless_given_and_kept_on_create(keyed_client, operator_key, session):
    client = keyed_client(operator_key)
    assert _create(client, session).json()["rateLimit"] is None
    reply = _create(client, session, rateLimit=25)
    assert reply.status_code == 200, reply.content
    assert reply.json()["rateLimit"] == 25
    assert Webhook.objects.get(pk=reply.json()["id"]).rate_limit == 25


@pytest.mark.django_db
def test_patch_sets_and_clears_the_rate_limit(keyed_client, operator_key, session):
    client = keyed_client(operator_key)
    webhook_id = _create(client, session).json()["id"]
    reply = client.patch(f"/gateway/webhooks/{webhook_id}", {"rateLimit": 1000}, format="json")
    assert reply.status_code == 200, reply.content
    assert reply.json()["rateLimit"] == 1000
    reply = client.patch(f"/gateway/webhooks/{webhook_id}", {"rateLimit": None}, format="json")
    assert reply.json()["rateLimit"] is None
    assert client.get(f"/gateway/webhooks/{webhook_id}").json()["rateLimit"] is None


@pytest.mark.django_db
@pytest.mark.parametrize("value", [0, 1001, -5])
def test_rate_limit_outside_one_to_a_thousand_answers_400(keyed_client, operator_key, session, value):
    client = keyed_client(operator_key)
    reply = _create(client, session, rateLimit=value)
    assert reply.status_code == 400
    assert "error" in reply.json()
    webhook_id = _create(client, session).json()["id"]
    reply = client.patch(f"/gateway/webhooks/{webhook_id}", {"rateLimit": value}, format="json")
    assert reply.status_code == 400
    assert Webhook.objects.get(pk=webhook_id).rate_limit is None


@pytest.mark.django_db
def test_a_viewer_cannot_set_a_rate_limit(keyed_client, viewer_key, operator_key, session):
    webhook_id = _create(keyed_client(operator_key), session).json()["id"]
    reply = keyed_client(viewer_key).patch(f"/gateway/webhooks/{webhook_id}", {"rateLimit": 3}, format="json")
    assert reply.status_code == 403


# Slow (tests/tiers.py): two threads race for seconds.
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_database_window_holds_for_two_threads_racing(settings, session):
    settings.REDIS_URL = ""  # the embedded default's limiter, whatever this suite runs on
    webhook = webhook_create(account=session.account, session_id=session.id, url=URL, events=["message"])
    sends: list[tuple[float, float]] = []  # (allowed, ended) of each send
    lock = threading.Lock()

    def send_for_a_while(post_seconds: float) -> None:
        from django.db import connection

        try:
            deadline = time.monotonic() + 2.5
            while time.monotonic() < deadline:
                ticket = rate_limit.acquire(webhook.pk, 10, timeout_seconds=10)
                if isinstance(ticket, float):
                    time.sleep(min(ticket, 0.05))
                    continue
                allowed = time.time()
                time.sleep(post_seconds)  # the POST on its way
                ended = time.time()
                rate_limit.release(ticket)
                with lock:
                    sends.append((allowed, ended))
        finally:
            connection.close()

    threads = [threading.Thread(target=send_for_a_while, args=(seconds,)) for seconds in (0.0, 0.15)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(sends) >= 20  # about ten a second
    # Wherever in its POST a request arrives, no second holds more than ten.
    assert _most_in_one_second([allowed for allowed, _ in sends]) <= 10
    assert _most_in_one_second([ended for _, ended in sends]) <= 10
    assert _most_in_one_second([(allowed + ended) / 2 for allowed, ended in sends]) <= 10


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_two_workers_never_exceed_the_webhooks_rate_limit(start_worker, session, receiver, allow_loopback):
    start_worker(concurrency=4)
    start_worker(concurrency=4)
    webhook = webhook_create(
        account=session.account,
        session_id=session.id,
        url=receiver.url,
        events=["message"],
        rate_limit=5,
    )
    count = 24
    for number in range(count):
        emit(session_id=session.id, name="message", data={"id": f"M{number}"}, chat=f"55{number % 3}@s")

    wait_for(lambda: len(receiver.received) >= count, timeout=60, what="every delivery")
    arrivals = [request.at for request in receiver.received]
    assert _most_in_one_second(arrivals) <= 5
    assert max(arrivals) - min(arrivals) >= (count - 5) / 5  # paced, not sent in a burst
    time.sleep(0.3)
    rows = Delivery.objects.filter(webhook=webhook)
    assert sorted(rows.values_list("status", flat=True)) == ["delivered"] * count
    # Held back is not an attempt: every delivery took exactly one.
    assert set(rows.values_list("attempt_count", flat=True)) == {1}


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_webhook_without_a_limit_is_not_slowed_by_a_limited_one(
    start_worker, session, make_receiver, allow_loopback
):
    limited, free = make_receiver(), make_receiver()
    start_worker()
    for url, limit in ((limited.url, 1), (free.url, None)):
        webhook_create(
            account=session.account, session_id=session.id, url=url, events=["message"], rate_limit=limit
        )
    for number in range(10):
        emit(session_id=session.id, name="message", data={"id": f"F{number}"})
    wait_for(lambda: len(free.received) >= 10, timeout=30, what="the unlimited webhook's deliveries")
    assert len(limited.received) <= 3  # one a second
    wait_for(lambda: len(limited.received) >= 10, timeout=60, what="the limited webhook's deliveries")
    assert _most_in_one_second([request.at for request in limited.received]) <= 1


@pytest.mark.django_db
def test_staff_set_and_clear_a_rate_limit_in_the_admin(admin_client, session):
    webhook = webhook_create(account=session.account, session_id=session.id, url=URL, events=["message"])
    change = f"/admin/webhooks/webhook/{webhook.pk}/change/"
    form = {"url": URL, "events": ["message"], "retry_count": 5, "status": "active"}

    assert admin_client.post(change, {**form, "rate_limit": 7}).status_code == 302
    webhook.refresh_from_db()
    assert webhook.rate_limit == 7
    refused = admin_client.post(change, {**form, "rate_limit": 1001})
    assert refused.status_code == 200 and "rate_limit" in refused.context["adminform"].form.errors
    assert admin_client.post(change, {**form, "rate_limit": ""}).status_code == 302
    webhook.refresh_from_db()
    assert webhook.rate_limit is None


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_webhook_sharing_the_url_of_a_limited_one_is_not_held_behind_it(
    start_worker, session, receiver, allow_loopback
):
    start_worker()
    limited, free = (
        webhook_create(
            account=session.account,
            session_id=session.id,
            url=receiver.url,
            events=["message"],
            rate_limit=limit,
        )
        for limit in (1, None)
    )
    for number in range(10):
        emit(session_id=session.id, name="message", data={"id": f"S{number}"})

    def delivered(webhook: Webhook) -> int:
        return Delivery.objects.filter(webhook=webhook, status="delivered").count()

    wait_for(lambda: delivered(free) == 10, timeout=30, what="the unlimited webhook's deliveries")
    assert delivered(limited) <= 4  # one a second
    wait_for(lambda: delivered(limited) == 10, timeout=60, what="the limited webhook's deliveries")
    assert set(Delivery.objects.filter(webhook=limited).values_list("attempt_count", flat=True)) == {1}
