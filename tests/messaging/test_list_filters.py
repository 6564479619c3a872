"""The messaging list filters (messaging.filters FilterSets) through the API: sessions by status on both
interfaces, message history by chat; a wrong value is a 400 in each interface's error shape."""

from __future__ import annotations

import pytest

from tests.messaging.contract import CUSTOMER

pytestmark = pytest.mark.django_db


def send(client, session, to: str, text: str) -> None:
    body = {"sessionId": str(session.pk), "to": to, "text": text}
    assert client.post("/api/messages/send", body, format="json").status_code == 200


def ids(reply: list[dict]) -> list[str]:
    return [session["id"] for session in reply]


def test_the_status_filter_lists_sessions_in_that_status_and_reads_qrcode_as_qr(
    admin_client, make_session, connected_session
) -> None:
    waiting = make_session("waiting")["id"]
    assert admin_client.post(f"/api/sessions/{waiting}/connect").status_code == 200
    paired = str(connected_session("paired").pk)
    idle = make_session("idle")["id"]
    assert ids(admin_client.get("/api/sessions?status=QRCODE").json()["data"]) == [waiting]
    assert ids(admin_client.get("/api/sessions?status=connected").json()["data"]) == [paired]
    assert ids(admin_client.get("/gateway/sessions?status=qr").json()["sessions"]) == [waiting]
    assert ids(admin_client.get("/gateway/sessions?status=%20Disconnected%20").json()["sessions"]) == [idle]
    assert len(admin_client.get("/api/sessions").json()["data"]) == 3


def test_an_unknown_status_is_a_400_in_each_interfaces_shape(admin_client) -> None:
    reply = admin_client.get("/api/sessions?status=paused")
    assert reply.status_code == 400
    assert reply.json() == {
        "statusCode": 400,
        "error": "VALIDATION_ERROR",
        "message": "status: 'paused' is not one of disconnected, qr (also QRCODE), connected.",
    }
    reply = admin_client.get("/gateway/sessions?status=paused")
    assert (reply.status_code, reply.json()) == (
        400,
        {"error": "status: 'paused' is not one of disconnected, qr (also QRCODE), connected."},
    )


def test_a_present_but_empty_status_is_refused_not_read_as_no_filter(admin_client) -> None:
    reply = admin_client.get("/api/sessions?status=")
    assert reply.status_code == 400
    assert reply.json()["details"] == ["status: This field may not be blank."]
    assert admin_client.get("/gateway/sessions?status=").status_code == 400


def test_pagination_and_filter_errors_come_in_one_reply_pagination_first(admin_client) -> None:
    reply = admin_client.get("/api/messages?page=0&limit=x")
    assert reply.status_code == 400
    assert reply.json()["details"] == [
        "page: Ensure this value is greater than or equal to 1.",
        "limit: A valid integer is required.",
        "sessionId: This field is required.",
    ]


def test_the_chat_filter_takes_a_number_or_a_jid_and_lists_only_that_chat(
    admin_client, connected_session
) -> None:
    session = connected_session()
    send(admin_client, session, CUSTOMER, "to the customer")
    send(admin_client, session, "5521900000001", "to someone else")
    for chat in (CUSTOMER, f"{CUSTOMER}@s.whatsapp.net"):
        reply = admin_client.get(f"/api/messages?sessionId={session.pk}&chat={chat}").json()
        assert [m["content"]["text"] for m in reply["data"]] == ["to the customer"]
    assert admin_client.get(f"/api/messages?sessionId={session.pk}").json()["meta"]["total"] == 2


def test_a_chat_that_is_no_number_or_jid_is_a_400_naming_the_parameter(
    admin_client, connected_session
) -> None:
    session = connected_session()
    reply = admin_client.get(f"/api/messages?sessionId={session.pk}&chat=nope")
    assert reply.status_code == 400 and reply.json()["message"].startswith("Invalid chat 'nope'")
    blank = admin_client.get(f"/api/messages?sessionId={session.pk}&chat=")
    assert blank.json()["details"] == ["chat: This field may not be blank."]


def test_the_session_id_is_looked_up_after_the_filters_are_valid(admin_client) -> None:
    assert admin_client.get("/api/messages?sessionId=nope").status_code == 404
    too_long = admin_client.get("/api/messages?sessionId=" + "a" * 65)
    assert too_long.json()["details"] == ["sessionId: Ensure this field has no more than 64 characters."]


@pytest.mark.parametrize("path", ["/api/sessions", "/api/messages", "/gateway/sessions", "/gateway/webhooks"])
def test_options_on_a_filtered_list_answers_200_like_any_view(admin_client, path) -> None:
    # Found by the fuzzer: the lists are generic views (for the filter backend), and DRF's metadata then
    # built their serializer, which they do not declare: 500.
    response = admin_client.options(path)
    assert response.status_code == 200
    assert set(response.json()) == {"name", "description", "renders", "parses"}
