"""The delivery log over the gateway: a webhook's deliveries, one delivery with its attempts, resend,
dead letters and their bulk resend; viewers read, operators and admins resend; a key sees only its
account's deliveries of its allowed sessions, and anything else is 404."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import ApiKey
from messaging.models import Session
from tests.webhooks.sender_depth import patch, register, send_due
from webhooks.models import Delivery, Webhook
from webhooks.services import emit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings, allow_loopback):
    settings.PONTE_WEBHOOK_RETRY_DELAY_SCALE = 0


def _history(client, session, receiver_statuses, make_receiver):
    """A webhook and one event per status the receiver answers (retryCount 1: a failure is a dead letter)."""
    receiver = make_receiver(statuses=list(receiver_statuses))
    hook = register(client, session, receiver.url, retryCount=1)
    for n in range(len(receiver_statuses)):
        emit(session_id=session.id, name="message", data={"id": f"M{n}", "text": f"text {n}"})
        send_due()
    return hook, receiver


def test_a_viewer_lists_a_webhooks_deliveries_newest_first_with_their_webhook_ids(
    keyed_client, admin_key, viewer_key, session, make_receiver
):
    hook, receiver = _history(keyed_client(admin_key), session, [200, 500, 200], make_receiver)
    reply = keyed_client(viewer_key).get(f"/gateway/webhooks/{hook['id']}/deliveries")
    assert reply.status_code == 200
    rows = reply.json()["data"]
    assert [row["eventId"] for row in rows] == [r.headers["webhook-id"] for r in reversed(receiver.received)]
    assert [row["status"] for row in rows] == ["delivered", "dead", "delivered"]
    dead = rows[1]
    assert dead["event"] == "message" and dead["webhookId"] == hook["id"] and dead["attempts"] == 1
    # An answer is its status code; lastError says why there was none (a timeout, a refused connection).
    assert (dead["lastStatusCode"], dead["lastError"], dead["nextAttemptAt"]) == (500, None, None)
    assert dead["deadAt"] and dead["deliveredAt"] is None and rows[0]["deliveredAt"]
    assert rows[0]["lastError"] is None
    assert reply.json()["meta"] == {"total": 3, "page": 1, "limit": 20, "totalPages": 1}


def test_the_list_filters_by_status_event_and_time_and_pages(keyed_client, admin_key, session, make_receiver):
    client = keyed_client(admin_key)
    hook, _receiver = _history(client, session, [200, 500, 200, 500], make_receiver)
    path = f"/gateway/webhooks/{hook['id']}/deliveries"
    dead = client.get(path, {"status": "dead"}).json()
    assert [row["status"] for row in dead["data"]] == ["dead", "dead"] and dead["meta"]["total"] == 2
    assert client.get(path, {"event": "messages"}).json()["meta"]["total"] == 4  # an alias
    assert client.get(path, {"event": "qr"}).json()["meta"]["total"] == 0
    later = (timezone.now() + timedelta(minutes=1)).isoformat()
    assert client.get(path, {"since": later}).json()["data"] == []
    assert client.get(path, {"until": later}).json()["meta"]["total"] == 4
    first, second = client.get(path, {"limit": 3}).json(), client.get(path, {"limit": 3, "page": 2}).json()
    assert first["meta"] == {"total": 4, "page": 1, "limit": 3, "totalPages": 2}
    everything = [row["id"] for row in client.get(path).json()["data"]]
    assert [row["id"] for row in first["data"] + second["data"]] == everything


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"status": "lost"}, "status:"),
        ({"event": "typing"}, "event: unknown event 'typing'"),
        ({"since": "yesterday"}, "since:"),
        ({"limit": 0}, "limit:"),
        ({"page": "x"}, "page:"),
    ],
)
def test_a_wrong_filter_is_a_400_naming_it(keyed_client, admin_key, session, make_receiver, query, named):
    client = keyed_client(admin_key)
    hook = register(client, session, make_receiver().url)
    reply = client.get(f"/gateway/webhooks/{hook['id']}/deliveries", query)
    assert reply.status_code == 400 and named in reply.json()["error"], reply.json()


def test_a_delivery_shows_its_body_and_every_attempt_with_the_first_kib_of_each_answer(
    keyed_client, admin_key, viewer_key, session, make_receiver
):
    answer = ("é" * 600 + "tail").encode()  # 1,204 bytes: the log keeps the first 1,024 (512 characters)
    receiver = make_receiver(statuses=[503, 502, 200], answer=answer)
    register(keyed_client(admin_key), session, receiver.url, retryCount=3)
    emit(session_id=session.id, name="message", data={"id": "M0", "text": "olá"})
    send_due()
    (delivery,) = Delivery.objects.all()
    for ref in (delivery.pk, delivery.dispatch_id):
        reply = keyed_client(viewer_key).get(f"/gateway/deliveries/{ref}")
        assert reply.status_code == 200
        body = reply.json()
        assert body["id"] == delivery.pk and body["status"] == "delivered"
        assert body["payload"] == delivery.payload and body["payload"]["data"]["id"] == "M0"
        assert [a["statusCode"] for a in body["attempts"]] == [503, 502, 200]
        assert [a["outcome"] for a in body["attempts"]] == ["retry", "retry", "delivered"]
        assert [a["error"] for a in body["attempts"]] == [None, None, None]
        assert all(isinstance(a["durationMs"], int) and a["at"] for a in body["attempts"])
        assert body["attempts"][0]["responseBody"] == "é" * 512
    assert len(receiver.received) == 3


def test_an_operator_resends_a_dead_letter_to_the_current_url_with_the_same_webhook_id(
    keyed_client, operator_key, session, make_receiver
):
    client = keyed_client(operator_key)
    hook, first = _history(client, session, [500], make_receiver)
    moved = make_receiver()
    assert patch(client, hook["id"], url=moved.url, secret="now").status_code == 200
    (delivery,) = Delivery.objects.all()
    reply = client.post(f"/gateway/deliveries/{delivery.pk}/resend")
    assert reply.status_code == 202
    assert (reply.json()["status"], reply.json()["eventId"]) == ("pending", delivery.dispatch_id)
    send_due()
    (request,) = moved.received
    assert request.headers["webhook-id"] == first.received[0].headers["webhook-id"]
    assert client.get(f"/gateway/deliveries/{delivery.pk}").json()["status"] == "delivered"


def test_a_viewer_may_not_resend(keyed_client, admin_key, viewer_key, session, make_receiver):
    _history(keyed_client(admin_key), session, [500], make_receiver)
    (delivery,) = Delivery.objects.all()
    client = keyed_client(viewer_key)
    assert client.post(f"/gateway/deliveries/{delivery.pk}/resend").status_code == 403
    reply = client.post("/gateway/dead-letters/resend", {"ids": [delivery.pk]}, format="json")
    assert reply.status_code == 403
    assert Delivery.objects.get().status == "dead"


def test_a_delivery_on_its_way_or_of_a_disabled_webhook_is_not_resent(
    keyed_client, admin_key, session, make_receiver
):
    client = keyed_client(admin_key)
    hook, _receiver = _history(client, session, [500], make_receiver)
    (dead,) = Delivery.objects.all()
    emit(session_id=session.id, name="message", data={"id": "waiting"})
    waiting = Delivery.objects.get(status="pending")
    reply = client.post(f"/gateway/deliveries/{waiting.pk}/resend")
    assert (reply.status_code, reply.json()) == (409, {"error": "Delivery in progress"})
    assert patch(client, hook["id"], status="disabled").status_code == 200
    reply = client.post(f"/gateway/deliveries/{dead.pk}/resend")
    assert (reply.status_code, reply.json()) == (409, {"error": "Webhook disabled"})


def test_dead_letters_list_newest_first_and_narrow_to_a_session_or_a_webhook(
    keyed_client, admin_key, account, session, make_receiver
):
    client = keyed_client(admin_key)
    _history(client, session, [500, 200, 500], make_receiver)
    other = Session.objects.create(account=account, name="other", status=Session.Status.CONNECTED)
    other_hook, _ = _history(client, other, [500], make_receiver)
    everything = client.get("/gateway/dead-letters").json()
    assert everything["meta"]["total"] == 3
    dead_at = [row["deadAt"] for row in everything["data"]]
    assert dead_at == sorted(dead_at, reverse=True) and everything["data"][0]["webhookId"] == other_hook["id"]
    one_session = client.get("/gateway/dead-letters", {"sessionId": str(session.id)}).json()
    assert {row["sessionId"] for row in one_session["data"]} == {str(session.id)}
    assert one_session["meta"]["total"] == 2
    one_hook = client.get("/gateway/dead-letters", {"webhookId": other_hook["id"]}).json()
    assert [row["webhookId"] for row in one_hook["data"]] == [other_hook["id"]]


def test_dead_letters_resend_by_ids_counts_what_it_skipped(
    keyed_client, admin_key, make_account, make_key, session, make_receiver
):
    client = keyed_client(admin_key)
    _hook, receiver = _history(client, session, [500, 200, 500], make_receiver)
    dead = list(Delivery.objects.filter(status="dead").values_list("pk", flat=True))
    delivered = Delivery.objects.get(status="delivered").pk
    stranger = make_account(name="stranger")
    stranger_session = Session.objects.create(account=stranger, name="s", status=Session.Status.CONNECTED)
    _history(keyed_client(make_key(for_account=stranger)), stranger_session, [500], make_receiver)
    foreign = Delivery.objects.get(session=stranger_session).pk
    client = keyed_client(admin_key)
    reply = client.post("/gateway/dead-letters/resend", {"ids": [*dead, delivered, foreign]}, format="json")
    assert (reply.status_code, reply.json()) == (202, {"queued": 2, "skipped": 2})
    assert Delivery.objects.get(pk=foreign).status == "dead"
    send_due()
    assert len(receiver.received) == 5


def test_dead_letters_resend_by_webhook_and_since(keyed_client, operator_key, session, make_receiver):
    client = keyed_client(operator_key)
    hook, receiver = _history(client, session, [500, 500, 200], make_receiver)
    since = (timezone.now() - timedelta(days=30)).isoformat()  # older than anything kept: all of them
    body = {"webhookId": hook["id"], "since": since}
    reply = client.post("/gateway/dead-letters/resend", body, format="json")
    assert (reply.status_code, reply.json()) == (202, {"queued": 2, "skipped": 0})
    send_due()
    assert Delivery.objects.filter(status="delivered").count() == 3
    assert len(receiver.received) == 5


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({}, "ids: give either ids, or webhookId and since"),
        ({"ids": [1], "webhookId": "wh_x", "since": "2026-01-01T00:00:00Z"}, "ids: give either"),
        ({"webhookId": "wh_x"}, "since:"),
        ({"ids": []}, "ids: give 1 to 1000"),
        ({"ids": ["one"]}, "ids.0: A valid integer is required"),
        ({"ids": [2**63]}, "ids.0: Ensure this value is less than or equal to"),
        ({"webhookId": "wh_x", "since": "soon"}, "since:"),
    ],
)
def test_a_wrong_dead_letter_resend_is_a_400_naming_the_field(keyed_client, admin_key, db, body, named):
    reply = keyed_client(admin_key).post("/gateway/dead-letters/resend", body, format="json")
    assert reply.status_code == 400 and reply.json()["error"].startswith(named), reply.json()


def test_another_accounts_deliveries_are_not_found(
    keyed_client, admin_key, make_account, make_key, session, make_receiver
):
    hook, _receiver = _history(keyed_client(admin_key), session, [500], make_receiver)
    (delivery,) = Delivery.objects.all()
    client = keyed_client(make_key(for_account=make_account(name="stranger")))
    for reply, error in [
        (client.get(f"/gateway/webhooks/{hook['id']}/deliveries"), "Webhook not found"),
        (client.get(f"/gateway/deliveries/{delivery.pk}"), "Delivery not found"),
        (client.get(f"/gateway/deliveries/{delivery.dispatch_id}"), "Delivery not found"),
        (client.post(f"/gateway/deliveries/{delivery.pk}/resend"), "Delivery not found"),
        (client.get("/gateway/dead-letters", {"sessionId": str(session.id)}), "Session not found"),
        (client.get("/gateway/dead-letters", {"webhookId": hook["id"]}), "Webhook not found"),
        (
            client.post(
                "/gateway/dead-letters/resend",
                {"webhookId": hook["id"], "since": timezone.now().isoformat()},
                format="json",
            ),
            "Webhook not found",
        ),
    ]:
        assert (reply.status_code, reply.json()) == (404, {"error": error})
    assert client.get("/gateway/dead-letters").json()["data"] == []
    assert Delivery.objects.get().status == "dead"


def test_a_key_limited_to_other_sessions_finds_none_of_this_sessions_deliveries(
    keyed_client, admin_key, make_key, account, session, make_receiver
):
    hook, _receiver = _history(keyed_client(admin_key), session, [500], make_receiver)
    (delivery,) = Delivery.objects.all()
    elsewhere = Session.objects.create(account=account, name="elsewhere", status=Session.Status.CONNECTED)
    client = keyed_client(make_key(ApiKey.Role.OPERATOR, allowed_sessions=[str(elsewhere.id)]))
    assert client.get(f"/gateway/webhooks/{hook['id']}/deliveries").status_code == 404
    assert client.get(f"/gateway/deliveries/{delivery.pk}").status_code == 404
    assert client.post(f"/gateway/deliveries/{delivery.pk}/resend").status_code == 404
    assert client.get("/gateway/dead-letters", {"sessionId": str(session.id)}).status_code == 404
    assert client.get("/gateway/dead-letters").json()["meta"]["total"] == 0
    reply = client.post("/gateway/dead-letters/resend", {"ids": [delivery.pk]}, format="json")
    assert reply.json() == {"queued": 0, "skipped": 1}
    allowed = keyed_client(make_key(ApiKey.Role.VIEWER, allowed_sessions=[str(session.id)]))
    assert allowed.get(f"/gateway/deliveries/{delivery.pk}").status_code == 200
    assert allowed.get("/gateway/dead-letters").json()["meta"]["total"] == 1


def test_a_malformed_delivery_id_is_not_found(keyed_client, admin_key, db):
    client = keyed_client(admin_key)
    for ref in ("abc", "1" * 30, str(2**63), "-1", "١٢", "msg_nothing"):
        assert client.get(f"/gateway/deliveries/{ref}").status_code == 404, ref


def test_the_list_costs_a_fixed_number_of_queries(
    keyed_client, admin_key, session, make_receiver, django_assert_max_num_queries
):
    client = keyed_client(admin_key)
    hook, _receiver = _history(client, session, [200] * 6, make_receiver)
    with django_assert_max_num_queries(8):
        reply = client.get(f"/gateway/webhooks/{hook['id']}/deliveries")
    assert len(reply.json()["data"]) == 6


def test_a_delivery_costs_a_fixed_number_of_queries_whatever_its_attempts(
    keyed_client, admin_key, session, make_receiver, django_assert_max_num_queries
):
    receiver = make_receiver(statuses=[500] * 4)
    register(keyed_client(admin_key), session, receiver.url, retryCount=5)
    emit(session_id=session.id, name="message", data={"id": "M0"})
    send_due()
    (delivery,) = Delivery.objects.all()
    client = keyed_client(admin_key)
    with django_assert_max_num_queries(8):
        reply = client.get(f"/gateway/deliveries/{delivery.pk}")
    assert len(reply.json()["attempts"]) == 5


def test_a_deleted_webhooks_dead_letter_is_listed_and_refused_on_resend(
    keyed_client, admin_key, session, make_receiver
):
    client = keyed_client(admin_key)
    hook, _receiver = _history(client, session, [500], make_receiver)
    client.delete(f"/gateway/webhooks/{hook['id']}")
    assert not Webhook.objects.exists()
    (row,) = client.get("/gateway/dead-letters").json()["data"]
    assert row["webhookId"] is None
    reply = client.post(f"/gateway/deliveries/{row['id']}/resend")
    assert (reply.status_code, reply.json()) == (409, {"error": "Webhook deleted"})
