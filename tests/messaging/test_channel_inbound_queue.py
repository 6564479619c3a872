"""The inbound queue of official channels (messaging.channels.queue, issue 39 item 4): the view stores a
signed body's items in rows of at most 50 and answers; a worker records one row per turn, in order, at
least once and never a message twice; a body past the item limit is refused whole."""

from __future__ import annotations

import json

import pytest

from messaging.channels import queue
from messaging.channels.models import ChannelInboundBatch
from messaging.channels.split import body_split
from messaging.models import Message
from tests.messaging.channel_webhooks import (
    PSID,
    cloud_body,
    cloud_message,
    inbound_drain,
    page_body,
    page_item,
)
from tests.messaging.graph_standin import sign
from webhooks.models import Event

pytestmark = pytest.mark.django_db


def _post(meta_client, session, body: dict):
    """POST signed without recording: what the view alone does."""
    raw = json.dumps(body).encode()
    return meta_client.post(
        f"/channels/{session.provider}/{session.pk}/webhook",
        data=raw,
        content_type="application/json",
        HTTP_X_HUB_SIGNATURE_256=sign(raw),
    )


def _texts(n: int, *, prefix: str = "wamid.Q") -> list[dict]:
    return [
        cloud_message("text", {"body": f"m{i}"}, mid=f"{prefix}{i:05d}", ts=1763800000 + i) for i in range(n)
    ]


def _rows(session):
    return ChannelInboundBatch.objects.filter(session=session).order_by("id")


def test_a_body_is_stored_in_rows_of_at_most_50_items_and_answered_before_any_is_recorded(
    meta_client, official_session
):
    session = official_session("whatsapp_cloud")
    response = _post(meta_client, session, cloud_body(messages=_texts(120)))
    assert response.status_code == 200
    assert [row.item_count for row in _rows(session)] == [50, 50, 20]
    assert not Message.objects.filter(session=session).exists()


def test_each_turn_records_one_row_in_the_order_of_the_body(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    _post(meta_client, session, cloud_body(messages=_texts(120)))
    assert queue.session_drain(str(session.pk)) == 1
    first = Message.objects.filter(session=session).values_list("message_id", flat=True)
    assert sorted(first) == [f"wamid.Q{i:05d}" for i in range(50)]
    assert inbound_drain(session) == 2
    assert Message.objects.filter(session=session).count() == 120
    assert set(_rows(session).values_list("status", flat=True)) == {"done"}


def test_a_row_recorded_twice_stores_and_reports_each_message_once(meta_client, official_session):
    """At least once: a worker killed after its transaction committed but before the row was settled
    leaves the row to run again; the receive path skips the messages it already has."""
    session = official_session("whatsapp_cloud")
    _post(meta_client, session, cloud_body(messages=_texts(60)))
    inbound_drain(session)
    _rows(session).update(status=ChannelInboundBatch.Status.PENDING, finished_at=None)
    inbound_drain(session)
    assert Message.objects.filter(session=session).count() == 60
    assert Event.objects.filter(session_id=session.pk, name="message").count() == 60


def test_a_row_that_cannot_be_recorded_is_retried_then_dead_and_the_next_rows_go_on(
    meta_client, official_session
):
    session = official_session("whatsapp_cloud")
    _post(meta_client, session, cloud_body(messages=_texts(60)))
    broken = _rows(session).first()
    # A body whose text is not JSON cannot be recorded, however often it is tried.
    _rows(session).filter(pk=broken.pk).update(body="{broken", max_attempts=2)
    assert queue.session_drain(str(session.pk)) == 1
    broken.refresh_from_db()
    assert broken.status == "failed" and broken.attempt_count == 1
    _rows(session).filter(pk=broken.pk).update(next_attempt_at=broken.created_at)  # its retry is due
    inbound_drain(session)
    broken.refresh_from_db()
    assert broken.status == "dead" and broken.attempt_count == 2
    assert Message.objects.filter(session=session).count() == 10  # the next row's 10, recorded


def test_a_body_with_more_items_than_the_limit_is_413_and_nothing_is_stored(meta_client, official_session):
    session = official_session("messenger")
    items = [page_item(message={"mid": f"m_{i}", "text": "x"}) for i in range(queue.MAX_ITEMS_PER_BODY + 1)]
    response = _post(meta_client, session, page_body(*items))
    assert response.status_code == 413
    assert b"10001 items in one body, at most 10000" in response.content
    assert not _rows(session).exists()


def test_a_body_at_the_limit_is_stored(meta_client, official_session):
    session = official_session("messenger")
    items = [page_item(message={"mid": f"m_{i}", "text": "x"}) for i in range(queue.MAX_ITEMS_PER_BODY)]
    assert _post(meta_client, session, page_body(*items)).status_code == 200
    assert sum(_rows(session).values_list("item_count", flat=True)) == queue.MAX_ITEMS_PER_BODY


def test_a_body_without_items_stores_nothing(meta_client, official_session):
    session = official_session("whatsapp_cloud")
    assert (
        _post(meta_client, session, {"object": "whatsapp_business_account", "entry": []}).status_code == 200
    )
    assert not _rows(session).exists()


def test_the_cut_keeps_every_item_in_order_with_its_entry_change_and_senders_name():
    contacts = [{"profile": {"name": f"N{i}"}, "wa_id": f"55{i}"} for i in range(3)]
    messages = [
        {"from": f"55{i % 3}", "id": f"w{i}", "type": "text", "text": {"body": "x"}} for i in range(7)
    ]
    statuses = [{"id": "out", "status": "read"}]
    value = {
        "metadata": {"phone_number_id": "1"},
        "contacts": contacts,
        "messages": messages,
        "statuses": statuses,
    }
    body = {
        "object": "whatsapp_business_account",
        "entry": [{"id": "W", "changes": [{"field": "messages", "value": value}]}],
    }
    parts = body_split("whatsapp_cloud", body, size=3)
    assert [count for _, count in parts] == [3, 3, 2]
    values = [part["entry"][0]["changes"][0]["value"] for part, _ in parts]
    assert [m["id"] for v in values for m in v.get("messages", [])] == [f"w{i}" for i in range(7)]
    assert values[2]["statuses"] == statuses
    assert {c["wa_id"] for c in values[2]["contacts"]} == {"550"}  # only the part's senders are named
    assert all(part["object"] == "whatsapp_business_account" for part, _ in parts)
    assert parts[0][0]["entry"][0]["id"] == "W" and values[0]["metadata"] == {"phone_number_id": "1"}


def test_page_entries_are_cut_between_their_messaging_items():
    body = page_body(*[page_item(message={"mid": f"m_{i}", "text": "x"}, sender=PSID) for i in range(5)])
    parts = body_split("messenger", body, size=2)
    assert [count for _, count in parts] == [2, 2, 1]
    assert [
        item["message"]["mid"] for part, _ in parts for e in part["entry"] for item in e["messaging"]
    ] == [f"m_{i}" for i in range(5)]


def test_a_dead_part_resent_from_the_admin_is_recorded(meta_client, official_session):
    from django.contrib.auth import get_user_model
    from django.test import Client

    session = official_session("whatsapp_cloud")
    _post(meta_client, session, cloud_body(messages=_texts(3)))
    _rows(session).update(status=ChannelInboundBatch.Status.DEAD, attempt_count=10)
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("staff", "staff@example.com", "pw"))
    listing = staff.get("/admin/channels/channelinboundbatch/?status__exact=dead")
    assert listing.status_code == 200 and b"wamid.Q00000" not in listing.content  # the body is not shown
    response = staff.post(
        "/admin/channels/channelinboundbatch/",
        {"action": "resend", "_selected_action": [str(row.pk) for row in _rows(session)]},
        follow=True,
    )
    assert b"1 part(s) queued again to be recorded." in response.content
    inbound_drain(session)
    assert Message.objects.filter(session=session).count() == 3
