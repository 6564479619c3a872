"""A webhook's `filter`: conditions on the delivered body, checked when written (400 naming the
problem) and evaluated when the event is emitted: an event that does not match gets no delivery and is
not counted; other webhooks of the session are not affected."""

from __future__ import annotations

import json

import pytest
from django.contrib.admin.utils import quote

from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.body_filters import filter_clean, filter_matches
from webhooks.models import Delivery, Event, Webhook
from webhooks.services import emit

pytestmark = pytest.mark.django_db

URL = "https://93.184.215.14/hook"


@pytest.fixture(autouse=True)
def _fast(settings, allow_loopback):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0


def _message(session, n: int, **data):
    return emit(session_id=session.id, name="message", data={"id": f"M{n}", "text": "hi", **data})


def test_only_messages_not_from_me_reach_a_webhook_filtering_on_from_me(
    keyed_client, admin_key, session, make_receiver
):
    receiver = make_receiver()
    client = keyed_client(admin_key)
    hook = register(client, session, receiver.url, filter={"data.fromMe": False})
    assert hook["filter"] == {"data.fromMe": False}
    everything = register(client, session, make_receiver().url)
    assert everything["filter"] is None
    _message(session, 1, fromMe=False)
    _message(session, 2, fromMe=True)
    send_due()
    assert [json.loads(r.body)["data"]["id"] for r in receiver.received] == ["M1"]
    # The other event got no delivery row for the filtered webhook, and the unfiltered one got both.
    assert Delivery.objects.filter(webhook_id=hook["id"]).count() == 1
    assert Delivery.objects.filter(webhook_id=everything["id"]).count() == 2
    log = client.get(f"/gateway/webhooks/{hook['id']}/deliveries").json()
    assert log["meta"]["total"] == 1  # not counted as a delivery anywhere
    assert Event.objects.count() == 2  # the event itself is kept (live socket, stream, others)


def test_in_ne_and_exists_select_media_of_others(keyed_client, admin_key, session):
    client = keyed_client(admin_key)
    conditions = {
        "data.type": {"$in": ["image", "video"]},
        "data.sender": {"$ne": "5511900000001@s.whatsapp.net"},
        "data.mediaUrl": {"$exists": True},
    }
    hook = register(client, session, URL, filter=conditions)
    _message(session, 1, type="image", mediaUrl="https://x/1.jpg", sender="5511999990000@s.whatsapp.net")
    _message(session, 2, type="text", sender="5511999990000@s.whatsapp.net")
    _message(session, 3, type="video", mediaUrl="https://x/3.mp4", sender="5511900000001@s.whatsapp.net")
    payloads = [d.payload["data"]["id"] for d in Delivery.objects.filter(webhook_id=hook["id"])]
    assert payloads == ["M1"]


def test_a_patched_filter_applies_to_the_next_event_and_null_removes_it(keyed_client, admin_key, session):
    client = keyed_client(admin_key)
    hook = register(client, session, URL)
    assert patch(client, hook["id"], filter={"data.text": "yes"}).json()["filter"] == {"data.text": "yes"}
    _message(session, 1)  # text "hi": filtered out
    assert not Delivery.objects.filter(webhook_id=hook["id"]).exists()
    assert patch(client, hook["id"], filter=None).json()["filter"] is None
    _message(session, 2)
    assert Delivery.objects.filter(webhook_id=hook["id"]).count() == 1
    assert patch(client, hook["id"], filter={}).json()["filter"] is None  # {}: every event too


@pytest.mark.parametrize(
    ("conditions", "problem"),
    [
        ([1], "must be an object of conditions"),
        ("data.fromMe", "must be an object of conditions"),
        ({"data..type": 1}, "a path is dotted names"),
        ({"": 1}, "a path is dotted names"),
        ({"data.type": {"$regex": "x"}}, "unknown operator '$regex'"),
        ({"data.type": {}}, "name at least one operator"),
        ({"data.type": {"$in": "image"}}, "$in takes a list"),
        ({"data.type": {"$in": []}}, "$in takes a list"),
        ({"data.fromMe": {"$exists": "yes"}}, "$exists takes true or false"),
        ({"data.type": {"a": 1}}, "unknown operator 'a'"),
        ({"data.type": [1, 2]}, "values must be strings"),
        ({f"k{n}": 1 for n in range(21)}, "at most 20 conditions"),
    ],
)
def test_a_bad_filter_is_refused_naming_the_problem(keyed_client, admin_key, session, conditions, problem):
    client = keyed_client(admin_key)
    body = {"sessionId": str(session.id), "url": URL, "events": ["message"], "filter": conditions}
    reply = client.post("/gateway/webhooks", body, format="json")
    assert reply.status_code == 400
    assert reply.json()["error"].startswith("filter: ") and problem in reply.json()["error"]
    hook = register(client, session, URL, filter={"data.fromMe": False})
    refused = patch(client, hook["id"], filter=conditions)
    assert refused.status_code == 400 and problem in refused.json()["error"]
    assert Webhook.objects.get(pk=hook["id"]).filter == {"data.fromMe": False}


def test_equality_is_jsons_so_false_is_not_zero_and_a_missing_path_equals_nothing():
    body = {"data": {"fromMe": False, "count": 0, "tags": ["a", "b"]}}
    assert filter_matches(filter_clean({"data.fromMe": False}), body)
    assert not filter_matches(filter_clean({"data.count": False}), body)
    assert not filter_matches(filter_clean({"data.fromMe": 0}), body)
    assert filter_matches(filter_clean({"data.tags.1": "b"}), body)
    assert not filter_matches(filter_clean({"data.absent": None}), body)
    assert filter_matches(filter_clean({"data.absent": {"$ne": 1, "$nin": [1], "$exists": False}}), body)
    assert not filter_matches(filter_clean({"data.absent": {"$in": [None]}}), body)
    assert filter_matches(None, body)


def test_the_filter_is_edited_in_the_admin_with_the_same_checks(admin_client, session):
    webhook = Webhook.objects.create(account=session.account, session=session, url=URL, events=["message"])
    path = f"/admin/webhooks/webhook/{quote(webhook.pk)}/change/"
    form = {"url": URL, "events": ["message"], "retry_count": 5, "status": "active", "headers": "null"}
    assert admin_client.post(path, {**form, "filter": '{"data.fromMe": false}'}).status_code == 302
    webhook.refresh_from_db()
    assert webhook.filter == {"data.fromMe": False}
    refused = admin_client.post(path, {**form, "filter": '{"data.type": {"$regex": "x"}}'})
    assert refused.status_code == 200 and "unknown operator" in refused.content.decode()
