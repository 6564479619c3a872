"""POST /gateway/webhooks/{id}/replay: a window of the webhook's events again, to its current target,
each with its original webhook-id; bounded to 7 days and 10,000 deliveries."""

from __future__ import annotations

from datetime import timedelta

import pytest
import standardwebhooks
from django.utils import timezone

from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Delivery
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
