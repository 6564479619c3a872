"""POST /gateway/webhooks/{id}/replay: a window of the webhook's events again, to its current target,
each with its original webhook-id; bounded to 7 days and 10,000 deliveries."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import standardwebhooks
from django.utils import timezone

from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Delivery, WebhookReplay
from webhooks.registered import replay
from webhooks.services import emit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings, allow_loopback):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0


def _replay(client, webhook_id, **body):
    return client.post(f"/gateway/webhooks/{webhook_id}/replay", body, format="json")


def _history(client, session, make_receiver):
    """Three events: two delivered, one dead letter; then the webhook moves to a new receiver."""
    first, moved = make_receiver(statuses=[200, 500, 200]), make_receiver()
    hook = register(client, session, first.url, secret="old", retryCount=1)
    for n in range(3):
        emit(session_id=session.id, name="message", data={"id": f"M{n}"})
        send_due()
    ids = [r.headers["webhook-id"] for r in first.received]
    reply = patch(client, hook["id"], url=moved.url, secret="current", headers={"X-Replayed": "yes"})
    assert reply.status_code == 200
    return hook, ids, moved


def test_a_replay_sends_the_window_again_to_the_current_target_with_the_original_ids(
    keyed_client, operator_key, session, make_receiver
):
    client = keyed_client(operator_key)
    hook, ids, moved = _history(client, session, make_receiver)
    since = (timezone.now() - timedelta(minutes=5)).isoformat()
    reply = _replay(client, hook["id"], since=since)
    assert (reply.status_code, reply.json()) == (202, {"queued": 3})
    send_due()
    assert sorted(r.headers["webhook-id"] for r in moved.received) == sorted(ids)
    for request in moved.received:
        standardwebhooks.Webhook(b"current").verify(request.body, request.headers)
        assert request.headers["x-replayed"] == "yes"
    assert Delivery.objects.filter(status=Delivery.Status.DELIVERED).count() == 3


def test_only_failed_replays_the_dead_letters(keyed_client, admin_key, session, make_receiver):
    client = keyed_client(admin_key)
    hook, ids, moved = _history(client, session, make_receiver)
    since = (timezone.now() - timedelta(minutes=5)).isoformat()
    assert _replay(client, hook["id"], since=since, onlyFailed=True).json() == {"queued": 1}
    send_due()
    assert [r.headers["webhook-id"] for r in moved.received] == [ids[1]]


def test_the_window_s_end_is_exclusive_and_a_window_in_the_past_replays_nothing(
    keyed_client, admin_key, session, make_receiver
):
    client = keyed_client(admin_key)
    hook, _ids, _moved = _history(client, session, make_receiver)
    long_ago = timezone.now() - timedelta(days=3)
    reply = _replay(
        client, hook["id"], since=long_ago.isoformat(), until=(long_ago + timedelta(days=1)).isoformat()
    )
    assert reply.json() == {"queued": 0}


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({}, "since: This field is required."),
        ({"since": "yesterday"}, "since: "),
        ({"since": "2026-01-01T00:00:00Z", "until": "2026-01-09T00:00:00Z"}, "at most 7 days"),
        ({"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, "until: must be after since"),
    ],
)
def test_a_bad_window_is_refused_naming_the_field_and_the_limit(
    keyed_client, admin_key, session, receiver, body, error
):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url)
    reply = _replay(client, hook["id"], **body)
    assert reply.status_code == 400
    assert error in reply.json()["error"]


def test_more_deliveries_than_the_limit_are_refused_naming_it(
    keyed_client, admin_key, session, receiver, monkeypatch
):
    monkeypatch.setattr(replay, "MAX_DELIVERIES", 2)
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url)
    for n in range(3):
        emit(session_id=session.id, name="message", data={"id": f"M{n}"})
    send_due()
    reply = _replay(client, hook["id"], since=(timezone.now() - timedelta(hours=1)).isoformat())
    assert reply.status_code == 400
    assert "at most 2 per replay" in reply.json()["error"]


def test_viewers_cannot_replay(keyed_client, admin_key, viewer_key, session, receiver):
    hook = register(keyed_client(admin_key), session, receiver.url)
    reply = _replay(keyed_client(viewer_key), hook["id"], since=timezone.now().isoformat())
    assert reply.status_code == 403


def _feed_to_the_end(replay_id: str) -> int:
    """Run the replay's feeder step by step, as its task does, sending what each step hands over; steps."""
    steps = 0
    while True:
        send_due()
        steps += 1
        if not replay.replay_feed(replay_id=replay_id):
            return steps
        assert steps < 50


def _events(session, count: int, *, event_ms=None) -> None:
    for n in range(count):
        ms = event_ms(n) if event_ms else None
        emit(session_id=session.id, name="message", data={"id": f"M{n}"}, event_ms=ms)
    send_due()


def test_a_second_replay_while_the_first_runs_is_409_naming_it_and_one_after_it_finished_is_queued(
    settings, keyed_client, admin_key, session, receiver
):
    settings.PONTE_WEBHOOK_REPLAY_CHUNK = 2
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url)
    _events(session, 5)
    since = (timezone.now() - timedelta(minutes=5)).isoformat()
    assert _replay(client, hook["id"], since=since).json() == {"queued": 5}
    running = WebhookReplay.objects.get()
    second = _replay(client, hook["id"], since=since, onlyFailed=True)
    assert second.status_code == 409
    error = second.json()["error"]
    assert error.startswith(f"replay {running.pk} of this webhook is still running") and "2 of 5" in error
    _feed_to_the_end(running.pk)
    assert _replay(client, hook["id"], since=since).json() == {"queued": 5}
    assert WebhookReplay.objects.filter(finished_at__isnull=True).count() == 1


def test_a_replay_hands_over_one_chunk_at_a_time_in_the_order_of_the_events_own_time(
    settings, keyed_client, admin_key, session, receiver
):
    settings.PONTE_WEBHOOK_REPLAY_CHUNK = 2
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url)
    now_ms = int(timezone.now().timestamp() * 1000)
    _events(session, 5, event_ms=lambda n: now_ms - 1000 * n)  # written in the reverse of their time
    first_ids = [r.headers["webhook-id"] for r in receiver.received]
    receiver.received.clear()
    since = (timezone.now() - timedelta(minutes=5)).isoformat()
    assert _replay(client, hook["id"], since=since).json() == {"queued": 5}
    assert Delivery.objects.filter(status=Delivery.Status.PENDING).count() == 2  # one chunk at a time
    steps = _feed_to_the_end(WebhookReplay.objects.get().pk)
    assert steps == 3  # the request handed over 2, two steps 2 and 1, the third found none left
    received = [r.headers["webhook-id"] for r in receiver.received]
    in_time_order = list(reversed(first_ids))
    chunks = [received[0:2], received[2:4], received[4:]]
    assert [set(chunk) for chunk in chunks] == [
        set(in_time_order[0:2]),
        set(in_time_order[2:4]),
        {in_time_order[4]},
    ]
    assert WebhookReplay.objects.get().finished_at is not None


def test_selection_is_by_the_event_s_own_time_and_never_reaches_past_the_seven_days_kept(
    keyed_client, admin_key, session, receiver
):
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url)
    now = timezone.now()

    def ms(moment) -> int:
        return int(moment.timestamp() * 1000)

    # Happened 7 days and an hour ago, 6 days ago and 2 days ago; all three written (received) just now.
    moments = [now - timedelta(days=7, hours=1), now - timedelta(days=6), now - timedelta(days=2)]
    _events(session, 3, event_ms=lambda n: ms(moments[n]))
    sent = {json.loads(r.body)["data"]["id"]: r.headers["webhook-id"] for r in receiver.received}
    receiver.received.clear()
    reply = _replay(
        client,
        hook["id"],
        since=(now - timedelta(days=7, hours=2)).isoformat(),
        until=(now - timedelta(days=1)).isoformat(),
    )
    assert reply.json() == {"queued": 2}  # not the one older than what is kept
    _feed_to_the_end(WebhookReplay.objects.get().pk)
    assert sorted(r.headers["webhook-id"] for r in receiver.received) == sorted([sent["M1"], sent["M2"]])
    # By the event's time, not when its delivery was written: a window of last week's days finds nothing
    # written today that happened today.
    WebhookReplay.objects.update(finished_at=now)
    reply = _replay(
        client,
        hook["id"],
        since=(now - timedelta(days=5)).isoformat(),
        until=(now - timedelta(days=3)).isoformat(),
    )
    assert reply.json() == {"queued": 0}


def test_a_replay_stops_when_its_webhook_is_disabled_and_a_stalled_one_is_restarted_by_the_sweeper(
    settings, keyed_client, admin_key, session, receiver
):
    settings.PONTE_WEBHOOK_REPLAY_CHUNK = 2
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url)
    _events(session, 5)
    since = (timezone.now() - timedelta(minutes=5)).isoformat()
    assert _replay(client, hook["id"], since=since).json() == {"queued": 5}
    running = WebhookReplay.objects.get()
    # Its feeder's message was lost three ticks ago: the sweeper publishes a new one.
    WebhookReplay.objects.update(ticked_at=timezone.now() - timedelta(seconds=4))
    assert replay.replays_resume() == 1
    assert patch(client, hook["id"], status="disabled").status_code == 200
    assert replay.replay_feed(replay_id=running.pk) is False
    running.refresh_from_db()
    assert running.finished_at is not None and running.released == 2
    assert replay.replays_resume() == 0
