"""A signed inbound body of thousands of items on the real worker path (issue 39 item 4): the view stores
the items and answers at once, a Celery worker records them in turns per session, and another tenant is
served meanwhile, both on the web side (`GET /api/me`) and on the worker side (its own session's items).
And a slow Graph API (issue 40 item 4): no lock held while it answers, no later item waiting for it.

The 1 s bounds are the issue's; the answer takes a JSON decode, a cut and one INSERT (about 0.1 s for
this body on a busy 2-core machine), and a turn of the worker one transaction of 50 items (about 4
statements an item)."""

from __future__ import annotations

import json
import statistics
import time

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from messaging.channels.models import ChannelCall
from messaging.models import Message, Session
from tests.messaging.channel_webhooks import PSID, cloud_body, cloud_message, page_body, page_item
from tests.messaging.conftest import other_account_key
from tests.messaging.graph_standin import credentials_for, sign
from tests.webhooks.conftest import start_worker  # noqa: F401
from tests.webhooks.support import wait_for
from webhooks.models import Event

BULK = 9_000


def _official_session(client: APIClient, name: str, *, provider: str = "whatsapp_cloud") -> Session:
    body = {"name": name, "provider": provider, "credentials": credentials_for(provider)}
    response = client.post("/api/sessions", body, format="json")
    assert response.status_code == 201, response.json()
    return Session.objects.get(pk=response.json()["id"])


def _post(client: APIClient, session: Session, messages: list[dict]) -> tuple[int, float]:
    raw = json.dumps(cloud_body(messages=messages)).encode()
    started = time.monotonic()
    response = client.post(
        f"/channels/{session.provider}/{session.pk}/webhook",
        data=raw,
        content_type="application/json",
        HTTP_X_HUB_SIGNATURE_256=sign(raw),
    )
    return response.status_code, time.monotonic() - started


def _stored(session: Session) -> int:
    return Message.objects.filter(session=session).count()


@pytest.mark.worker
def test_a_9000_message_body_is_answered_at_once_and_recorded_once_while_other_tenants_are_served(
    start_worker,  # noqa: F811
    admin_client,
    graph,
    make_account,
    make_key,
    meta_client,
):
    start_worker(env={"PONTE_GRAPH_API_URL": graph.url})
    bulk_session = _official_session(admin_client, "bulk")
    _, other_key = other_account_key(make_account, make_key)
    other_client = APIClient(HTTP_X_API_KEY=other_key)
    other_session = _official_session(other_client, "other")
    # About 4.6 MB, as the probe's body: 9,000 text messages of 400 characters.
    bulk = [
        cloud_message("text", {"body": f"{i:05d} " + "x" * 394}, mid=f"wamid.BULK{i:05d}", ts=1763800000 + i)
        for i in range(BULK)
    ]

    status, answered_in = _post(meta_client, bulk_session, bulk)
    assert status == 200
    assert answered_in < 1.0, f"the 9,000-message body was answered in {answered_in:.2f} s"

    # Another tenant, while the worker records the bulk: its API answers, its own item is recorded
    # long before the bulk is (its session's turn comes behind at most one of the bulk's).
    status, _ = _post(meta_client, other_session, [cloud_message("text", {"body": "oi"}, mid="wamid.OTHER")])
    assert status == 200
    timings: list[float] = []
    while _stored(other_session) == 0 or len(timings) < 5:
        started = time.monotonic()
        assert other_client.get("/api/me").status_code == 200
        timings.append(time.monotonic() - started)
        time.sleep(0.1)
    assert _stored(bulk_session) < BULK, "the other session's item waited for the whole bulk"
    # The 1 s for the typical call; every call within 2.5 s, room for a busy 2-core machine
    # (on SQLite a write waits for the turn in progress) that still tells it from the 58 s it replaces.
    assert statistics.median(timings) < 1.0, f"GET /api/me took {timings} s while the bulk was recorded"
    assert max(timings) < 2.5, f"GET /api/me took {timings} s while the bulk was recorded"

    wait_for(lambda: _stored(bulk_session) == BULK, timeout=600, what="every bulk message recorded")
    ids = Message.objects.filter(session=bulk_session).values_list("message_id", flat=True)
    assert len(set(ids)) == BULK
    assert Event.objects.filter(session_id=bulk_session.pk, name="message").count() == BULK  # once each


def _row_lock_wait(session: Session) -> float:
    """How long taking the session's row lock and writing the row takes (PostgreSQL: the row lock;
    SQLite: the database's write lock)."""
    started = time.monotonic()
    with transaction.atomic():
        Session.objects.select_for_update().get(pk=session.pk)
        Session.objects.filter(pk=session.pk).update(name="locked by the test")
    return time.monotonic() - started


@pytest.mark.worker
def test_a_slow_read_receipt_holds_no_lock_and_no_later_item_of_the_session(
    start_worker,  # noqa: F811
    admin_client,
    graph,
    meta_client,
):
    """Issue 40 item 4: the Graph API takes 5 s per call; the receipt is a job made after the message
    was recorded, so the session's row is free and its next item is recorded while the receipt waits."""
    start_worker(env={"PONTE_GRAPH_API_URL": graph.url})
    session = _official_session(admin_client, "slow")
    assert (
        admin_client.put(
            f"/api/sessions/{session.pk}/settings", {"readMessages": True}, format="json"
        ).status_code
        == 200
    )
    graph.delay_seconds = 5.0

    first = cloud_message("text", {"body": "um"}, mid="wamid.SLOW1")
    status, answered_in = _post(meta_client, session, [first])
    assert status == 200 and answered_in < 1.0
    wait_for(
        lambda: any(call.body.get("message_id") == "wamid.SLOW1" for call in graph.sends()),
        what="the first message's read receipt sent to the Graph API",
    )
    assert _row_lock_wait(session) < 1.0  # the receipt's 5 s hold no lock

    second = cloud_message("text", {"body": "dois"}, mid="wamid.SLOW2")
    assert _post(meta_client, session, [second])[0] == 200
    wait_for(lambda: Message.objects.filter(session=session, message_id="wamid.SLOW2").exists(), what="SLOW2")
    receipt = ChannelCall.objects.get(session=session, message_id="wamid.SLOW1")
    assert receipt.status == "sending", "the second message waited for the first one's receipt"
    wait_for(
        lambda: ChannelCall.objects.filter(session=session, status="done").count() == 2,
        what="both receipts made",
    )


def _post_page(client: APIClient, session: Session, mid: str, text: str) -> tuple[int, float]:
    raw = json.dumps(page_body(page_item(message={"mid": mid, "text": text}))).encode()
    started = time.monotonic()
    response = client.post(
        f"/channels/{session.provider}/{session.pk}/webhook",
        data=raw,
        content_type="application/json",
        HTTP_X_HUB_SIGNATURE_256=sign(raw),
    )
    return response.status_code, time.monotonic() - started


@pytest.mark.worker
def test_a_slow_profile_lookup_holds_no_lock_and_no_later_item_of_the_session(
    start_worker,  # noqa: F811
    admin_client,
    graph,
    meta_client,
):
    """Issue 40 item 4: the Graph API takes 5 s per call; a Messenger customer's name is a job made after
    the message was recorded, so the session's row is free and its next item is recorded while the
    lookup waits; the name then fills the message."""
    start_worker(env={"PONTE_GRAPH_API_URL": graph.url})
    session = _official_session(admin_client, "slow-page", provider="messenger")
    graph.delay_seconds = 5.0
    status, answered_in = _post_page(meta_client, session, "m_SLOW", "oi")
    assert status == 200 and answered_in < 1.0
    wait_for(
        lambda: any(call.method == "GET" and call.path.endswith(f"/{PSID}") for call in graph.calls),
        what="the customer's profile asked of the Graph API",
    )
    assert _row_lock_wait(session) < 1.0  # the lookup's 5 s hold no lock

    status, answered_in = _post_page(meta_client, session, "m_SLOW2", "de novo")
    assert status == 200 and answered_in < 1.0
    wait_for(lambda: Message.objects.filter(session=session, message_id="m_SLOW2").exists(), what="m_SLOW2")
    lookup = ChannelCall.objects.filter(session=session, kind="profile").order_by("id").first()
    assert lookup.status == "sending", "the second message waited for the first one's profile lookup"
    message = wait_for(
        lambda: Message.objects.filter(
            session=session, message_id="m_SLOW", push_name="Maria Customer"
        ).first(),
        what="m_SLOW named",
    )
    assert message.push_name == "Maria Customer"
