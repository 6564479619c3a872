"""Session settings (`GET/PUT /api/sessions/{id}/settings`) and the sandbox honouring them: calls
rejected with the caller told, group messages ignored, messages read at once; registered webhooks
receive the `call` event that says `reject`."""

from __future__ import annotations

import json

import pytest

from messaging.models import Message
from tests.webhooks.support import LOOPBACK, Receiver
from webhooks.models import Delivery, Event
from webhooks.outbox import drains as outbox

pytestmark = pytest.mark.django_db

CALLER = "5511922220001"
CALLER_JID = f"{CALLER}@s.whatsapp.net"
OFF = {
    "rejectCalls": False,
    "rejectCallMessage": "",
    "ignoreGroups": False,
    "readMessages": False,
    "alwaysOnline": False,
    "syncFullHistory": False,
}


@pytest.fixture
def session(connected_session):
    return connected_session()


def settings_put(client, session, **body):
    return client.put(f"/api/sessions/{session.pk}/settings", body, format="json")


def inject(client, session, **body):
    response = client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_settings_start_off_and_a_put_changes_only_what_it_names(admin_client, session):
    assert admin_client.get(f"/api/sessions/{session.pk}/settings").json() == OFF
    response = settings_put(admin_client, session, rejectCalls=True, rejectCallMessage="Só por texto")
    assert response.status_code == 200
    assert response.json() == {**OFF, "rejectCalls": True, "rejectCallMessage": "Só por texto"}
    response = settings_put(admin_client, session, readMessages=True)
    assert response.json() == {
        **OFF,
        "rejectCalls": True,
        "rejectCallMessage": "Só por texto",
        "readMessages": True,
    }
    assert admin_client.get(f"/api/sessions/{session.pk}/settings").json() == response.json()


@pytest.mark.parametrize(
    "body",
    [
        {"rejectCalls": "sometimes"},
        {"rejectCallMessage": "x" * 501},
        {"alwaysOnline": None},
        {"syncFullHistory": 0},  # a number is no boolean (found by the fuzzer: it was read as false)
        {"readMessages": "true"},
    ],
)
def test_bad_settings_are_400(admin_client, session, body):
    response = settings_put(admin_client, session, **body)
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"


def test_viewers_read_settings_and_operators_change_them(keyed_client, make_key, session):
    viewer = keyed_client(make_key("viewer"))
    assert viewer.get(f"/api/sessions/{session.pk}/settings").status_code == 200
    assert settings_put(viewer, session, rejectCalls=True).status_code == 403
    assert settings_put(keyed_client(make_key("operator")), session, rejectCalls=True).status_code == 200
    missing = viewer.get("/api/sessions/7d0c1a52-0000-4000-8000-000000000000/settings")
    assert missing.status_code == 404 and missing.json()["error"] == "SESSION_NOT_FOUND"


def test_a_call_is_rejected_and_the_caller_gets_the_message(admin_client, session):
    settings_put(admin_client, session, rejectCalls=True, rejectCallMessage="Não atendo chamadas")
    data = inject(admin_client, session, event="call", callId="CALL1", **{"from": CALLER})["data"]
    assert (data["status"], data["from"], data["rejectMessage"]) == (
        "reject",
        CALLER_JID,
        "Não atendo chamadas",
    )
    (call,) = Event.objects.filter(name="call")
    assert call.data["status"] == "reject" and call.data["callId"] == "CALL1"
    told = Message.objects.get(session=session, chat=CALLER_JID)
    assert (told.from_me, told.content["text"]) == (True, "Não atendo chamadas")
    assert Event.objects.filter(name="message", chat=CALLER_JID, data__fromMe=True).exists()


def test_without_the_setting_a_call_is_only_reported(admin_client, session):
    data = inject(admin_client, session, event="call", **{"from": CALLER})["data"]
    assert data["status"] == "offer"
    assert not Message.objects.filter(session=session, chat=CALLER_JID).exists()


def test_a_rejected_call_without_a_message_sends_nothing(admin_client, session):
    settings_put(admin_client, session, rejectCalls=True)
    assert inject(admin_client, session, event="call", **{"from": CALLER})["data"]["status"] == "reject"
    assert not Message.objects.filter(session=session, chat=CALLER_JID).exists()


def test_ignored_group_messages_raise_no_event_and_are_not_stored(admin_client, session):
    group = admin_client.post(
        "/api/groups",
        {"sessionId": str(session.pk), "subject": "Equipe", "participants": [CALLER]},
        format="json",
    ).json()["group"]["id"]
    settings_put(admin_client, session, ignoreGroups=True)
    answer = inject(admin_client, session, event="message", chat=group, text="oi", **{"from": CALLER})
    assert answer["data"]["ignored"] is True
    assert not Message.objects.filter(session=session, chat=group).exists()
    assert not Event.objects.filter(name="message", chat=group).exists()
    # Direct messages still arrive.
    inject(admin_client, session, event="message", text="oi", **{"from": CALLER})
    assert Message.objects.filter(session=session, chat=CALLER_JID).exists()


def test_with_read_messages_received_messages_are_read_at_once(admin_client, session):
    settings_put(admin_client, session, readMessages=True)
    inject(admin_client, session, event="message", text="oi", **{"from": CALLER})
    chat = admin_client.get("/api/chats", {"sessionId": str(session.pk)}).json()["data"][0]
    assert (chat["id"], chat["unreadCount"]) == (CALLER_JID, 0)


def test_a_registered_webhook_receives_the_rejected_call(admin_client, session, settings):
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = [LOOPBACK]
    receiver = Receiver().start()
    try:
        created = admin_client.post(
            "/gateway/webhooks",
            {"sessionId": str(session.pk), "url": receiver.url, "events": ["call"]},
            format="json",
        )
        assert created.status_code == 200, created.content
        settings_put(admin_client, session, rejectCalls=True, rejectCallMessage="Texto, por favor")
        inject(admin_client, session, event="call", **{"from": CALLER})
        (delivery,) = Delivery.objects.filter(event__name="call")
        assert outbox.delivery_attempt(delivery_id=delivery.pk) == "delivered"
        (request,) = receiver.received
        body = json.loads(request.body)
        assert body["event"] == "call"
        assert (body["data"]["status"], body["data"]["from"]) == ("reject", CALLER_JID)
        assert body["data"]["rejectMessage"] == "Texto, por favor"
    finally:
        receiver.stop()
