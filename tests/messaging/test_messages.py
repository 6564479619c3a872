"""Message operations through the engine: send, reaction, vcard(s), location, buttons, delete, history."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from messaging.models import Message, SandboxDevice
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from tests.messaging.engines import UNAVAILABLE

pytestmark = pytest.mark.django_db


@pytest.fixture
def send(admin_client, session):
    def post(path: str, body: dict, client=None):
        return (client or admin_client).post(
            f"/api/messages/{path}", {"sessionId": str(session.pk), **body}, format="json"
        )

    return post


def inbound(admin_client, session, **body):
    response = admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/inbound", {"event": "message", **body}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()["data"]


# --- send ---------------------------------------------------------------------------------------


def test_send_text_to_a_number_replies_with_the_jid_and_records_the_message(send, session):
    response = send("send", {"to": CUSTOMER, "text": "Olá"})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "sent"
    assert body["to"] == CUSTOMER_JID
    assert body["messageId"].startswith("3EB0")
    assert "T" in body["timestamp"]
    message = Message.objects.get(message_id=body["messageId"])
    assert message.from_me and message.direction == "outbound"
    assert message.content == {"text": "Olá"}
    assert message.sender == session.jid


def test_send_accepts_a_jid(send):
    assert send("send", {"to": CUSTOMER_JID, "text": "hi"}).json()["to"] == CUSTOMER_JID


@pytest.mark.parametrize("to", ["+5511988880002", "11 98888", "abc", "5511988880002@c.us", "123@g.us", ""])
def test_an_invalid_recipient_is_400(send, to):
    response = send("send", {"to": to, "text": "hi"})
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"
    assert not Message.objects.exists()


def test_an_invalid_recipient_on_the_gateway_shape_reads_invalid_phone_number():
    from core.errors import error_body
    from messaging.errors import InvalidPhoneNumber

    assert error_body("/gateway/x", InvalidPhoneNumber())[0] == {"error": "Invalid phone number"}


def test_a_group_recipient_must_be_a_group_of_the_session(send):
    response = send("send", {"to": "120363000000000001@g.us", "text": "hi"})
    assert response.status_code == 404
    assert "group" in response.json()["message"]


def test_send_requires_text(send):
    for body in ({"to": CUSTOMER}, {"to": CUSTOMER, "text": ""}, {"to": CUSTOMER, "text": "x" * 4097}):
        response = send("send", body)
        assert response.status_code == 400
        assert response.json()["error"] == "VALIDATION_ERROR"


def test_send_quoting_a_message(admin_client, send, session):
    received = inbound(admin_client, session, **{"from": CUSTOMER, "text": "pedido?"})
    body = send("send", {"to": CUSTOMER, "text": "saiu", "quoted": {"messageId": received["id"]}}).json()
    assert Message.objects.get(message_id=body["messageId"]).content["quoted"] == {
        "messageId": received["id"]
    }


def test_quoting_an_unknown_message_is_message_not_found(send):
    response = send("send", {"to": CUSTOMER, "text": "x", "quoted": {"messageId": "NOPE"}})
    assert response.status_code == 404
    assert response.json()["error"] == "MESSAGE_NOT_FOUND"


def test_unknown_session_is_404_and_a_viewer_cannot_send(send, keyed_client, viewer_key, admin_client):
    missing = admin_client.post(
        "/api/messages/send",
        {"sessionId": "00000000-0000-0000-0000-000000000000", "to": CUSTOMER, "text": "x"},
        format="json",
    )
    assert missing.status_code == 404
    assert missing.json()["error"] == "SESSION_NOT_FOUND"
    assert send("send", {"to": CUSTOMER, "text": "x"}, client=keyed_client(viewer_key)).status_code == 403


def test_an_operator_can_send(send, keyed_client, operator_key):
    assert send("send", {"to": CUSTOMER, "text": "x"}, client=keyed_client(operator_key)).status_code == 200


def test_a_key_restricted_to_other_sessions_cannot_send(send, make_key, keyed_client, make_session):
    other = make_session("other")["id"]
    client = keyed_client(make_key("operator", allowed_sessions=[other]))
    assert send("send", {"to": CUSTOMER, "text": "x"}, client=client).status_code == 403


def test_a_session_that_is_not_connected_is_refused_before_the_engine(admin_client, make_session):
    session_id = make_session("idle")["id"]
    from messaging.models import Session

    # The unavailable engine would answer 502 if it were reached: 409 proves it was not.
    Session.objects.filter(pk=session_id).update(engine=UNAVAILABLE)
    for path, body in (
        ("send", {"to": CUSTOMER, "text": "x"}),
        ("location", {"to": CUSTOMER, "latitude": 1, "longitude": 2}),
        ("vcard", {"to": CUSTOMER, "displayName": "A", "phoneNumber": "5511900000001"}),
        ("buttons", {"to": CUSTOMER, "text": "x", "buttons": [{"buttonId": "a", "buttonText": "A"}]}),
        ("reaction", {"to": CUSTOMER, "messageId": "X", "reaction": "👍"}),
        ("delete", {"remoteJid": CUSTOMER, "messageId": "X", "fromMe": True}),
    ):
        response = admin_client.post(
            f"/api/messages/{path}", {"sessionId": session_id, **body}, format="json"
        )
        assert response.status_code == 409, path
        assert response.json()["error"] == "SESSION_NOT_CONNECTED"
        assert response.json()["status"] == "disconnected"


def test_invalid_input_never_reaches_the_engine(admin_client, session):
    session.engine = UNAVAILABLE
    session.save()
    response = admin_client.post(
        "/api/messages/location",
        {"sessionId": str(session.pk), "to": CUSTOMER, "latitude": 91, "longitude": 0},
        format="json",
    )
    assert response.status_code == 400


def test_an_unavailable_engine_is_502_and_nothing_is_recorded(admin_client, session):
    session.engine = UNAVAILABLE
    session.save()
    response = admin_client.post(
        "/api/messages/send", {"sessionId": str(session.pk), "to": CUSTOMER, "text": "x"}, format="json"
    )
    assert response.status_code == 502
    assert not Message.objects.exists()


# --- reaction -----------------------------------------------------------------------------------


def test_reaction_and_its_removal(admin_client, send, session):
    received = inbound(admin_client, session, **{"from": CUSTOMER, "text": "oi"})
    body = {"to": CUSTOMER, "messageId": received["id"]}
    added = send("reaction", {**body, "reaction": "👍"}).json()
    assert added == {"success": True, "messageId": received["id"], "reaction": "👍"}
    assert Message.objects.get(message_id=received["id"]).reactions == {session.jid: "👍"}
    removed = send("reaction", {**body, "reaction": ""}).json()
    assert removed == {"success": True, "messageId": received["id"], "reaction": None}
    assert Message.objects.get(message_id=received["id"]).reactions == {}


def test_reaction_to_an_unknown_message_is_message_not_found(send):
    response = send("reaction", {"to": CUSTOMER, "messageId": "NOPE", "reaction": "👍"})
    assert response.status_code == 404
    assert response.json()["error"] == "MESSAGE_NOT_FOUND"


@pytest.mark.parametrize("reaction", ["like", "ok 👍", "1", None])
def test_reaction_must_be_an_emoji(send, reaction):
    assert send("reaction", {"to": CUSTOMER, "messageId": "X", "reaction": reaction}).status_code == 400


# --- contact cards ------------------------------------------------------------------------------


def test_vcard(send):
    response = send(
        "vcard",
        {"to": CUSTOMER, "displayName": "Ana", "phoneNumber": "+55 (11) 91234-5678", "organization": "ACME"},
    )
    assert response.status_code == 200
    assert response.json()["status"] == "sent"
    message = Message.objects.get(message_id=response.json()["messageId"])
    assert message.type == "contact"
    assert "TEL;type=CELL;type=VOICE;waid=5511912345678:+5511912345678" in message.content["vcard"]
    assert "ORG:ACME;" in message.content["vcard"]


@pytest.mark.parametrize(
    "body",
    [
        {"displayName": "Ana"},
        {"phoneNumber": "5511912345678"},
        {"displayName": "Ana", "phoneNumber": "12"},
        {"displayName": "", "phoneNumber": "5511912345678"},
    ],
)
def test_vcard_validation(send, body):
    assert send("vcard", {"to": CUSTOMER, **body}).status_code == 400


def test_vcards_sends_one_message_with_several_cards(send):
    contacts = [
        {"displayName": "Ana", "phoneNumber": "5511912345678"},
        {"displayName": "Bia", "phoneNumber": "5521912345678", "organization": "X"},
    ]
    response = send("vcards", {"to": CUSTOMER, "displayName": "2 contacts", "contacts": contacts})
    body = response.json()
    assert response.status_code == 200
    assert body["count"] == 2
    assert body["status"] == "sent"
    assert body["to"] == CUSTOMER_JID
    assert Message.objects.count() == 1
    assert len(Message.objects.get().content["contacts"]) == 2


@pytest.mark.parametrize(
    "contacts", [[], "x", [{"displayName": "A"}], [{"displayName": "A", "phoneNumber": "5511912345678"}] * 51]
)
def test_vcards_validation(send, contacts):
    assert send("vcards", {"to": CUSTOMER, "displayName": "x", "contacts": contacts}).status_code == 400


# --- location -----------------------------------------------------------------------------------


def test_location(send):
    response = send(
        "location",
        {"to": CUSTOMER, "latitude": -23.5505, "longitude": -46.6333, "name": "Sé", "address": "SP"},
    )
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"messageId", "status", "to", "timestamp"}
    assert body["to"] == CUSTOMER_JID
    location = Message.objects.get().content["location"]
    assert location == {"latitude": -23.5505, "longitude": -46.6333, "name": "Sé", "address": "SP"}


@pytest.mark.parametrize(
    ("latitude", "longitude"),
    [(90.1, 0), (-90.1, 0), (0, 180.1), (0, -180.1), ("10", 0), (None, 0), (True, 0)],
)
def test_invalid_coordinates_are_validation_errors(send, latitude, longitude):
    response = send("location", {"to": CUSTOMER, "latitude": latitude, "longitude": longitude})
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"
    assert not Message.objects.exists()


def test_coordinates_on_the_limits_are_accepted(send):
    assert send("location", {"to": CUSTOMER, "latitude": -90, "longitude": 180}).status_code == 200


# --- buttons ------------------------------------------------------------------------------------


def test_buttons(send):
    buttons = [{"buttonId": "yes", "buttonText": "Sim"}, {"buttonId": "no", "buttonText": "Não"}]
    response = send("buttons", {"to": CUSTOMER, "text": "Confirma?", "buttons": buttons, "footer": "Ponte"})
    assert response.status_code == 200
    assert Message.objects.get().content["buttons"] == [
        {"button_id": "yes", "button_text": "Sim"},
        {"button_id": "no", "button_text": "Não"},
    ]


@pytest.mark.parametrize(
    "buttons",
    [
        [],
        [{"buttonId": str(i), "buttonText": "x"} for i in range(4)],
        [{"buttonId": "a", "buttonText": "x"}, {"buttonId": "a", "buttonText": "y"}],
        [{"buttonId": "a"}],
        [{"buttonText": "x"}],
    ],
)
def test_buttons_validation(send, buttons):
    assert send("buttons", {"to": CUSTOMER, "text": "x", "buttons": buttons}).status_code == 400


# --- delete -------------------------------------------------------------------------------------


def test_deleting_an_own_message_and_deleting_it_twice(send):
    sent = send("send", {"to": CUSTOMER, "text": "oops"}).json()
    body = {"remoteJid": CUSTOMER, "messageId": sent["messageId"], "fromMe": True}
    assert send("delete", body).json() == {"success": True, "messageId": sent["messageId"]}
    assert Message.objects.get().status == "deleted"
    again = send("delete", body)
    assert again.status_code == 409
    assert again.json()["error"] == "MESSAGE_ALREADY_DELETED"


def test_deleting_an_unknown_message_is_message_not_found(send):
    response = send("delete", {"remoteJid": CUSTOMER, "messageId": "NOPE", "fromMe": True})
    assert response.status_code == 404
    assert response.json()["error"] == "MESSAGE_NOT_FOUND"


def test_delete_requires_from_me(send):
    assert send("delete", {"remoteJid": CUSTOMER, "messageId": "X"}).status_code == 400


def test_from_me_must_match_the_message(admin_client, send, session):
    sent = send("send", {"to": CUSTOMER, "text": "mine"}).json()
    response = send("delete", {"remoteJid": CUSTOMER, "messageId": sent["messageId"], "fromMe": False})
    assert response.status_code == 400


def test_others_messages_in_a_direct_chat_cannot_be_deleted(admin_client, send, session):
    received = inbound(admin_client, session, **{"from": CUSTOMER, "text": "theirs"})
    response = send("delete", {"remoteJid": CUSTOMER, "messageId": received["id"], "fromMe": False})
    assert response.status_code == 403


def test_messages_older_than_the_window_cannot_be_deleted(send):
    sent = send("send", {"to": CUSTOMER, "text": "old"}).json()
    Message.objects.update(timestamp=timezone.now() - timedelta(hours=61))
    response = send("delete", {"remoteJid": CUSTOMER, "messageId": sent["messageId"], "fromMe": True})
    assert response.status_code == 409
    assert response.json()["error"] == "DELETION_WINDOW_EXPIRED"
    assert Message.objects.get().status == "sent"


def test_the_window_is_a_setting(send):
    sent = send("send", {"to": CUSTOMER, "text": "old"}).json()
    Message.objects.update(timestamp=timezone.now() - timedelta(seconds=120))
    with override_settings(MESSAGING_DELETE_WINDOW_SECONDS=60):
        body = {"remoteJid": CUSTOMER, "messageId": sent["messageId"], "fromMe": True}
        assert send("delete", body).status_code == 409


def _group_with(admin_client, session, *, admin: bool) -> str:
    group = "120363000000000777@g.us"
    body = {
        "event": "group_join",
        "group": group,
        "subject": "Equipe",
        "by": "5511900000009",
        "participants": [session.jid, CUSTOMER],
        "admins": [session.jid] if admin else [],
    }
    assert (
        admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json").status_code
        == 201
    )
    return group


def test_a_group_admin_deletes_others_messages(admin_client, send, session):
    group = _group_with(admin_client, session, admin=True)
    received = inbound(admin_client, session, **{"from": CUSTOMER, "chat": group, "text": "spam"})
    response = send("delete", {"remoteJid": group, "messageId": received["id"], "fromMe": False})
    assert response.status_code == 200


def test_a_non_admin_cannot_delete_others_messages_in_a_group(admin_client, send, session):
    group = _group_with(admin_client, session, admin=False)
    received = inbound(admin_client, session, **{"from": CUSTOMER, "chat": group, "text": "spam"})
    response = send("delete", {"remoteJid": group, "messageId": received["id"], "fromMe": False})
    assert response.status_code == 403
    assert "admin" in response.json()["message"]
    assert Message.objects.get(message_id=received["id"]).status != "deleted"


# --- history ------------------------------------------------------------------------------------


def test_history_is_paginated_newest_first_and_viewers_may_read_it(
    admin_client, send, session, keyed_client, viewer_key
):
    for index in range(3):
        send("send", {"to": CUSTOMER, "text": f"m{index}"})
    send("send", {"to": "5521900000001", "text": "other chat"})
    client = keyed_client(viewer_key)
    page = client.get(f"/api/messages?sessionId={session.pk}&chat={CUSTOMER}&limit=2").json()
    assert page["meta"] == {"total": 3, "page": 1, "limit": 2, "totalPages": 2}
    assert [m["content"]["text"] for m in page["data"]] == ["m2", "m1"]
    assert page["data"][0]["fromMe"] is True
    everything = client.get(f"/api/messages?sessionId={session.pk}").json()
    assert everything["meta"]["total"] == 4


def test_history_validation(admin_client, session):
    assert admin_client.get("/api/messages").status_code == 400
    assert admin_client.get(f"/api/messages?sessionId={session.pk}&chat=nope").status_code == 400
    assert admin_client.get(f"/api/messages?sessionId={session.pk}&limit=500").status_code == 400
    missing = admin_client.get("/api/messages?sessionId=nope")
    assert missing.status_code == 404


def test_sandbox_device_counts_messages_deterministically(send, session):
    first = send("send", {"to": CUSTOMER, "text": "a"}).json()["messageId"]
    second = send("send", {"to": CUSTOMER, "text": "b"}).json()["messageId"]
    assert first != second
    assert SandboxDevice.objects.get(session_id=session.pk).message_serial == 2
