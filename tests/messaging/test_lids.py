"""WhatsApp's linked ids (`…@lid`) through the public API on the sandbox: sending to them, the sender's
two ids on every message event, the session's LID ↔ phone map (`GET /api/contacts/lid`), and one chat
and one history per person whichever id its messages came under."""

from __future__ import annotations

import pytest

from messaging.engines.sandbox_lids import sandbox_lid_of
from messaging.models import LidMapping
from webhooks.models import Event

pytestmark = pytest.mark.django_db

ANA = "5511911110001"
ANA_PN = f"{ANA}@s.whatsapp.net"
ANA_LID = "190000111222333@lid"
BIA = "5511911110002"


def inject(client, session, **body):
    response = client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def lookup(client, session, id_):
    return client.get("/api/contacts/lid", {"sessionId": str(session.pk), "id": id_})


def event_of(text):
    return Event.objects.get(name="message", data__text=text).data


def history(client, session, chat):
    response = client.get("/api/messages", {"sessionId": str(session.pk), "chat": chat})
    assert response.status_code == 200, response.content
    return [m["content"].get("text") for m in response.json()["data"]]


def chats(client, session, **query):
    response = client.get("/api/chats", {"sessionId": str(session.pk), **query})
    assert response.status_code == 200, response.content
    return response.json()["data"]


def test_a_text_to_a_linked_id_is_sent_like_any_other(admin_client, session):
    body = {"sessionId": str(session.pk), "to": ANA_LID, "text": "olá"}
    response = admin_client.post("/api/messages/send", body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["to"] == ANA_LID


def test_a_linked_id_must_be_digits(admin_client, session):
    body = {"sessionId": str(session.pk), "to": "ana@lid", "text": "olá"}
    response = admin_client.post("/api/messages/send", body, format="json")
    assert response.status_code == 400
    assert "@lid" in response.json()["message"]


def test_a_message_from_a_linked_id_with_its_number_carries_both_and_teaches_the_pair(admin_client, session):
    inject(admin_client, session, event="message", **{"from": ANA_LID, "senderPn": ANA, "text": "oi"})
    data = event_of("oi")
    assert (data["sender"], data["senderLid"], data["senderPn"]) == (ANA_LID, ANA_LID, ANA_PN)
    for id_ in (ANA_LID, ANA_PN, ANA):
        response = lookup(admin_client, session, id_)
        assert response.status_code == 200, response.content
        assert response.json() == {"lid": ANA_LID, "pn": ANA_PN}


def test_a_later_message_from_the_linked_id_alone_carries_the_number_ponte_learned(admin_client, session):
    inject(admin_client, session, event="message", **{"from": ANA_LID, "text": "first"})
    first = event_of("first")
    assert (first["senderLid"], first["senderPn"]) == (ANA_LID, None)
    inject(admin_client, session, event="message", **{"from": ANA_LID, "senderPn": ANA, "text": "second"})
    inject(admin_client, session, event="message", **{"from": ANA_LID, "text": "third"})
    third = event_of("third")
    assert (third["sender"], third["senderLid"], third["senderPn"]) == (ANA_LID, ANA_LID, ANA_PN)


def test_a_phone_sender_is_its_own_sender_pn_and_its_linked_id_is_null_while_unknown(admin_client, session):
    inject(admin_client, session, event="message", **{"from": BIA, "text": "oi"})
    data = event_of("oi")
    assert (data["senderPn"], data["senderLid"]) == (f"{BIA}@s.whatsapp.net", None)


def test_sender_pn_is_refused_beside_a_phone_sender_or_as_a_linked_id(admin_client, session):
    path = f"/api/sandbox/sessions/{session.pk}/inbound"
    for body in (
        {"event": "message", "from": BIA, "senderPn": ANA, "text": "x"},
        {"event": "message", "from": ANA_LID, "senderPn": "190000111222444@lid", "text": "x"},
    ):
        response = admin_client.post(path, body, format="json")
        assert response.status_code == 400, response.content
        assert "senderPn" in response.json()["message"]


def test_the_lookup_asks_the_engines_store_when_ponte_does_not_know_and_remembers(admin_client, session):
    response = lookup(admin_client, session, BIA)
    assert response.status_code == 200, response.content
    assert response.json() == {"lid": sandbox_lid_of(BIA), "pn": f"{BIA}@s.whatsapp.net"}
    assert LidMapping.objects.filter(session=session, lid=sandbox_lid_of(BIA)).exists()
    assert lookup(admin_client, session, sandbox_lid_of(BIA)).json()["pn"] == f"{BIA}@s.whatsapp.net"


def test_an_id_nobody_knows_is_404_lid_not_found_and_a_missing_id_400(admin_client, session):
    response = lookup(admin_client, session, "80000999888777@lid")  # below 10^14: no number of the sandbox
    assert response.status_code == 404
    assert response.json()["error"] == "LID_NOT_FOUND"
    not_on_whatsapp = lookup(admin_client, session, "5511911110000")
    assert not_on_whatsapp.json()["error"] == "LID_NOT_FOUND"
    assert lookup(admin_client, session, "").status_code == 400
    assert lookup(admin_client, session, "120363025246125486@g.us").status_code == 400


def test_the_history_finds_a_persons_messages_by_either_id(admin_client, session):
    inject(admin_client, session, event="message", **{"from": ANA_LID, "text": "by lid"})
    inject(admin_client, session, event="message", **{"from": ANA, "text": "by number"})
    inject(admin_client, session, event="message", **{"from": ANA_LID, "senderPn": ANA, "text": "both"})
    assert history(admin_client, session, ANA_LID) == ["both", "by number", "by lid"]
    assert history(admin_client, session, ANA) == ["both", "by number", "by lid"]
    assert history(admin_client, session, BIA) == []


def test_two_chats_of_one_person_become_one_when_the_pair_is_learned(admin_client, session):
    inject(admin_client, session, event="message", **{"from": ANA_LID, "pushName": "Ana", "text": "a"})
    inject(admin_client, session, event="message", **{"from": ANA, "text": "b"})
    assert len(chats(admin_client, session)) == 2
    inject(admin_client, session, event="message", **{"from": ANA_LID, "senderPn": ANA, "text": "c"})
    (chat,) = chats(admin_client, session)
    assert (chat["id"], chat["lid"], chat["pn"], chat["unreadCount"]) == (ANA_LID, ANA_LID, ANA_PN, 3)
    assert chat["name"] == "Ana"
    for either in (ANA_LID, ANA_PN, ANA):
        assert [c["id"] for c in chats(admin_client, session, chat=either)] == [ANA_LID]


def test_a_message_for_the_other_id_of_a_listed_chat_goes_to_that_chat(admin_client, session):
    inject(admin_client, session, event="message", **{"from": ANA_LID, "senderPn": ANA, "text": "a"})
    inject(admin_client, session, event="message", **{"from": ANA, "text": "b"})
    body = {"sessionId": str(session.pk), "to": ANA, "text": "reply by number"}
    assert admin_client.post("/api/messages/send", body, format="json").status_code == 200
    (chat,) = chats(admin_client, session)
    assert (chat["id"], chat["unreadCount"]) == (ANA_LID, 2)
    assert [c["id"] for c in chats(admin_client, session, chat=BIA)] == []


def test_an_official_channel_has_no_linked_ids(admin_client, official_session):
    cloud = official_session("whatsapp_cloud")
    response = lookup(admin_client, cloud, ANA_LID)
    assert response.status_code == 400
    assert response.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert "graph engine" in response.json()["message"]
    body = {"sessionId": str(cloud.pk), "to": ANA_LID, "text": "olá"}
    response = admin_client.post("/api/messages/send", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "OPERATION_NOT_SUPPORTED"


def test_reading_a_persons_chat_by_either_id_clears_its_one_row(admin_client, session):
    inject(admin_client, session, event="message", **{"from": ANA_LID, "senderPn": ANA, "text": "a"})
    inject(admin_client, session, event="message", **{"from": ANA, "text": "b"})
    assert chats(admin_client, session)[0]["unreadCount"] == 2
    body = {"sessionId": str(session.pk), "chatId": ANA}
    assert admin_client.post("/api/chats/read", body, format="json").status_code == 200
    assert chats(admin_client, session)[0]["unreadCount"] == 0
