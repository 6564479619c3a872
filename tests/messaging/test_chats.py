"""Read receipts, presence, restart, and connection reasons (`disconnected`/`health`) on sessions."""

from __future__ import annotations

import pytest

from messaging.models import Session
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from webhooks.models import Event

pytestmark = pytest.mark.django_db


def inject(client, session, **body):
    return client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")


def post(client, path, session, **body):
    return client.post(f"/api/chats/{path}", {"sessionId": str(session.pk), **body}, format="json")


def test_read_marks_the_named_received_messages(admin_client, session):
    ids = [
        inject(admin_client, session, event="message", **{"from": CUSTOMER, "text": t}).json()["data"]["id"]
        for t in "ab"
    ]
    response = post(admin_client, "read", session, chatId=CUSTOMER, messageIds=ids[:1])
    assert response.status_code == 200
    assert response.json() == {"success": True, "chatId": CUSTOMER_JID, "messageIds": ids[:1]}


def test_read_without_ids_marks_the_newest_received_messages(admin_client, session):
    ids = {
        inject(admin_client, session, event="message", **{"from": CUSTOMER, "text": t}).json()["data"]["id"]
        for t in "abc"
    }
    response = post(admin_client, "read", session, chatId=CUSTOMER)
    assert response.status_code == 200 and set(response.json()["messageIds"]) == ids


def test_reading_an_unknown_message_is_404(admin_client, session):
    response = post(admin_client, "read", session, chatId=CUSTOMER, messageIds=["NOPE"])
    assert response.status_code == 404 and response.json()["error"] == "MESSAGE_NOT_FOUND"


@pytest.mark.parametrize("presence", ["composing", "recording", "paused", "available", "unavailable"])
def test_every_presence_is_accepted(admin_client, session, presence):
    response = post(admin_client, "presence", session, chatId=CUSTOMER, presence=presence)
    assert response.status_code == 200
    assert response.json() == {"success": True, "chatId": CUSTOMER_JID, "presence": presence}


@pytest.mark.parametrize(
    "path,body",
    [
        ("presence", {"chatId": CUSTOMER, "presence": "typing"}),
        ("presence", {"chatId": "abc", "presence": "paused"}),
        ("read", {"chatId": CUSTOMER, "messageIds": "X"}),
        ("read", {}),
    ],
)
def test_bad_chat_requests_are_400(admin_client, session, path, body):
    assert post(admin_client, path, session, **body).status_code == 400


def test_presence_in_a_group_the_session_is_not_in_is_404(admin_client, session):
    response = post(admin_client, "presence", session, chatId="120363000000000001@g.us", presence="composing")
    assert response.status_code == 404


def test_chat_actions_need_a_connected_session(admin_client, make_session):
    idle = make_session("idle")["id"]
    for path, body in (("read", {}), ("presence", {"presence": "composing"})):
        response = admin_client.post(
            f"/api/chats/{path}", {"sessionId": idle, "chatId": CUSTOMER, **body}, format="json"
        )
        assert response.status_code == 409 and response.json()["error"] == "SESSION_NOT_CONNECTED"


def test_a_replaced_connection_is_disconnected_with_its_reason_and_restart_reconnects(admin_client, session):
    assert inject(admin_client, session, event="disconnected", reason="replaced").status_code == 201
    detail = admin_client.get(f"/api/sessions/{session.pk}").json()
    assert (detail["status"], detail["reason"]) == ("disconnected", "replaced")
    event = Event.objects.filter(session_id=session.pk, name="disconnected").latest("sequence")
    assert event.data["reason"] == "replaced"
    restarted = admin_client.post(f"/api/sessions/{session.pk}/restart")
    assert restarted.status_code == 200, restarted.json()
    assert (restarted.json()["status"], restarted.json()["reason"]) == ("connected", "")
    assert restarted.json()["jid"] == session.jid


def test_restart_of_a_connected_session_keeps_it_connected(admin_client, session):
    response = admin_client.post(f"/api/sessions/{session.pk}/restart")
    assert response.status_code == 200 and response.json()["status"] == "connected"


@pytest.mark.parametrize("reason", ["logged_out", "banned"])
def test_after_a_logout_on_the_phone_or_a_ban_restart_needs_a_new_pairing(admin_client, session, reason):
    inject(admin_client, session, event="disconnected", reason=reason)
    assert admin_client.get(f"/api/sessions/{session.pk}").json()["reason"] == reason
    response = admin_client.post(f"/api/sessions/{session.pk}/restart")
    assert response.status_code == 409 and response.json()["error"] == "SESSION_NOT_CONNECTED"


def test_restart_of_a_session_never_paired_is_409(admin_client, make_session):
    idle = make_session("idle")["id"]
    assert admin_client.post(f"/api/sessions/{idle}/restart").status_code == 409


def test_health_reasons_are_kept_on_the_session_until_all_is_well(admin_client, session):
    inject(admin_client, session, event="health", status="BLOCKED", reason="banned")
    assert admin_client.get(f"/api/sessions/{session.pk}").json()["reason"] == "banned"
    inject(admin_client, session, event="health", status="AVAILABLE")
    assert admin_client.get(f"/api/sessions/{session.pk}").json()["reason"] == ""


def test_an_unknown_disconnect_reason_is_400(admin_client, session):
    assert inject(admin_client, session, event="disconnected", reason="bored").status_code == 400


def test_restart_needs_an_operator(keyed_client, make_key, session):
    assert keyed_client(make_key("viewer")).post(f"/api/sessions/{session.pk}/restart").status_code == 403


def test_a_session_may_be_created_with_its_own_proxy_which_is_never_returned(admin_client):
    response = admin_client.post(
        "/api/sessions", {"name": "wa", "proxy": "socks5://user:pw@127.0.0.1:1080"}, format="json"
    )
    assert response.status_code == 201 and "proxy" not in response.json()
    assert Session.objects.get(pk=response.json()["id"]).proxy == "socks5://user:pw@127.0.0.1:1080"
    bad = admin_client.post("/api/sessions", {"name": "wa", "proxy": "ftp://127.0.0.1:21"}, format="json")
    assert bad.status_code == 400


def test_a_network_throttle_is_429_with_retry_after(admin_client, session):
    from tests.messaging.engines import THROTTLED

    Session.objects.filter(pk=session.pk).update(engine=THROTTLED)
    response = admin_client.post(
        "/api/messages/send", {"sessionId": str(session.pk), "to": CUSTOMER, "text": "oi"}, format="json"
    )
    assert response.status_code == 429 and response["Retry-After"] == "42"
    assert response.json()["error"] == "TOO_MANY_REQUESTS"
    # An engine without media, read or presence says so plainly (403), never a 500.
    read = post(admin_client, "presence", session, chatId=CUSTOMER, presence="composing")
    assert read.status_code == 403
