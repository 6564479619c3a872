"""The plan's messages/day quota, per account and calendar day in America/Sao_Paulo."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db.models import F

from accounts.models import Plan
from messaging.models import DailyMessageCount, Message, Session
from messaging.services.quota import messages_sent_today, quota_day_bounds
from tests.messaging.engines import LATENT, UNAVAILABLE

pytestmark = pytest.mark.django_db

SP = ZoneInfo("America/Sao_Paulo")


@pytest.fixture
def free_session(make_account, make_key, keyed_client, connected_session):
    """A connected session of a Free account, and an admin client of that account."""
    free = make_account(plan_name="Free")
    client = keyed_client(make_key("admin", for_account=free))
    session_id = client.post("/api/sessions", {"name": "free"}, format="json").json()["id"]
    client.post(f"/api/sessions/{session_id}/connect")
    client.post(f"/api/sandbox/sessions/{session_id}/scan")
    return free, client, session_id


def _send(client, session_id, text="x"):
    return client.post(
        "/api/messages/send", {"sessionId": session_id, "to": "5511988880002", "text": text}, format="json"
    )


def test_free_plan_sends_480_messages_a_day():
    assert Plan.objects.get(name="Free").messages_per_day == 480


def test_an_exhausted_quota_is_429_with_retry_after_until_midnight(free_session):
    free, client, session_id = free_session
    free.plan.messages_per_day = 2
    free.plan.save()
    assert _send(client, session_id).status_code == 200
    assert _send(client, session_id).status_code == 200
    refused = _send(client, session_id)
    assert refused.status_code == 429
    body = refused.json()
    assert body["error"] == "TOO_MANY_REQUESTS"
    now = datetime.now(SP)
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    assert abs(body["retryAfter"] - (midnight - now).total_seconds()) <= 5
    assert refused["Retry-After"] == str(body["retryAfter"])
    assert Message.objects.filter(session_id=session_id).count() == 2


def test_every_sending_operation_counts_and_is_refused(free_session):
    free, client, session_id = free_session
    free.plan.messages_per_day = 1
    free.plan.save()
    sent = _send(client, session_id)
    assert sent.status_code == 200
    first = sent.json()["messageId"]
    base = {"sessionId": session_id, "to": "5511988880002"}
    for path, body in (
        ("vcard", {"displayName": "A", "phoneNumber": "5511900000001"}),
        ("vcards", {"displayName": "A", "contacts": [{"displayName": "A", "phoneNumber": "5511900000001"}]}),
        ("location", {"latitude": 1, "longitude": 1}),
        ("buttons", {"text": "x", "buttons": [{"buttonId": "a", "buttonText": "A"}]}),
        (
            "list",
            {
                "text": "x",
                "buttonText": "b",
                "sections": [{"title": "S", "rows": [{"rowId": "r", "title": "R"}]}],
            },
        ),
        ("forward", {"chat": "5511988880002", "messageId": first}),
        ("send", {"text": "https://a.example", "linkPreview": {"url": "https://a.example", "title": "A"}}),
    ):
        assert client.post(f"/api/messages/{path}", {**base, **body}, format="json").status_code == 429, path


def test_the_quota_is_per_account(free_session, make_account, make_key, keyed_client):
    free, client, session_id = free_session
    free.plan.messages_per_day = 1
    free.plan.save()
    _send(client, session_id)
    other = make_account(plan_name="Free")
    other_client = keyed_client(make_key("admin", for_account=other))
    other_id = other_client.post("/api/sessions", {"name": "o"}, format="json").json()["id"]
    other_client.post(f"/api/sessions/{other_id}/connect")
    other_client.post(f"/api/sandbox/sessions/{other_id}/scan")
    assert _send(other_client, other_id).status_code == 200


def test_inbound_messages_and_yesterdays_do_not_count(free_session):
    free, client, session_id = free_session
    client.post(
        f"/api/sandbox/sessions/{session_id}/inbound",
        {"event": "message", "from": "5511988880002", "text": "hi"},
        format="json",
    )
    _send(client, session_id)
    assert messages_sent_today(free) == 1
    DailyMessageCount.objects.filter(account=free).update(day=F("day") - timedelta(days=1))
    assert messages_sent_today(free) == 0
    free.plan.messages_per_day = 1
    free.plan.save()
    assert _send(client, session_id).status_code == 200


def test_the_day_is_the_sao_paulo_calendar_day():
    # 02:30 UTC is still the previous day in São Paulo (UTC-3).
    start, tomorrow = quota_day_bounds(datetime(2026, 3, 10, 2, 30, tzinfo=ZoneInfo("UTC")))
    assert start == datetime(2026, 3, 9, 0, 0, tzinfo=SP)
    assert tomorrow == datetime(2026, 3, 10, 0, 0, tzinfo=SP)


def test_a_refused_or_failed_send_is_not_counted(free_session):
    free, client, session_id = free_session
    quoting_nothing = {
        "sessionId": session_id,
        "to": "5511988880002",
        "text": "x",
        "quoted": {"messageId": "NOPE"},
    }
    assert client.post("/api/messages/send", quoting_nothing, format="json").status_code == 404
    assert messages_sent_today(free) == 0


def test_deleting_a_session_does_not_give_the_day_back(free_session):
    free, client, session_id = free_session
    _send(client, session_id)
    client.delete(f"/api/sessions/{session_id}")
    assert messages_sent_today(free) == 1


def test_unlimited_plans_have_no_quota(admin_client, connected_session):
    session = connected_session()
    assert session.account.plan.messages_per_day is None
    for _ in range(3):
        assert _send(admin_client, str(session.pk)).status_code == 200


@pytest.mark.parametrize("engine", ["", LATENT], ids=["sandbox", "over-a-network"])
def test_concurrent_sends_never_take_more_than_the_quota(transactional_db, make_account, make_key, engine):
    """Eight sends at once against a quota of three: three pass, five are refused, three are counted
    (the one-statement quota re-checks the limit on the row as a concurrent send left it), whether the
    quota is part of the send's transaction (the sandbox) or committed before the engine's round trip."""
    import threading

    from django.db import connection
    from rest_framework.test import APIClient

    free = make_account(plan_name="Free")
    free.plan.messages_per_day = 3
    free.plan.save()
    key = make_key("admin", for_account=free)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key)
    session_id = client.post("/api/sessions", {"name": "busy"}, format="json").json()["id"]
    client.post(f"/api/sessions/{session_id}/connect")
    client.post(f"/api/sandbox/sessions/{session_id}/scan")
    Session.objects.filter(pk=session_id).update(engine=engine)
    start, statuses = threading.Barrier(8), []

    def send() -> None:
        own = APIClient()
        own.credentials(HTTP_X_API_KEY=key)
        start.wait()
        try:
            statuses.append(_send(own, session_id).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(statuses) == [200] * 3 + [429] * 5
    assert messages_sent_today(free) == 3
    assert Message.objects.filter(session_id=session_id, from_me=True).count() == 3


@pytest.mark.django_db(transaction=True)
def test_a_send_over_a_network_gives_its_quota_back_when_the_engine_fails_or_refuses(
    admin_client, connected_session
):
    """Over a network the quota is committed before the round trip: a send the engine fails (502) or
    refuses (404: a group the session is not in) takes it back, one that succeeds keeps it."""
    session = connected_session()
    before = messages_sent_today(session.account)
    Session.objects.filter(pk=session.pk).update(engine=UNAVAILABLE)
    assert _send(admin_client, str(session.pk)).status_code == 502
    assert messages_sent_today(session.account) == before
    Session.objects.filter(pk=session.pk).update(engine=LATENT)
    to_a_stranger_group = {"sessionId": str(session.pk), "to": "120363000000000001@g.us", "text": "x"}
    refused = admin_client.post("/api/messages/send", to_a_stranger_group, format="json")
    assert refused.status_code in (403, 404), refused.json()
    assert messages_sent_today(session.account) == before
    assert _send(admin_client, str(session.pk)).status_code == 200
    assert messages_sent_today(session.account) == before + 1
