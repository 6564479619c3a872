"""Chats and contacts (`GET /api/chats`, `GET /api/contacts`) kept from what the session sends and
receives, and a contact's picture (`GET /api/contacts/picture`), through the public API on the sandbox."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

ANA = "5511911110001"
BIA = "5511911110002"
HIDDEN = "5511911110009"
NOBODY = "5511911110000"


def jid(number: str) -> str:
    return f"{number}@s.whatsapp.net"


@pytest.fixture
def session(connected_session):
    return connected_session()


def inject(client, session, **body):
    response = client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def chats(client, session, **query):
    response = client.get("/api/chats", {"sessionId": str(session.pk), **query})
    assert response.status_code == 200, response.content
    return response.json()


def test_received_messages_make_chats_newest_first_with_unread_counts(admin_client, session):
    inject(admin_client, session, event="message", **{"from": ANA, "pushName": "Ana", "text": "oi"})
    inject(admin_client, session, event="message", **{"from": BIA, "pushName": "Bia", "text": "olá"})
    inject(admin_client, session, event="message", **{"from": ANA, "pushName": "Ana", "text": "tudo bem?"})
    body = chats(admin_client, session)
    assert body["meta"] == {"total": 2, "page": 1, "limit": 20, "totalPages": 1}
    first, second = body["data"]
    assert (first["id"], first["name"], first["isGroup"], first["unreadCount"]) == (jid(ANA), "Ana", False, 2)
    assert (second["id"], second["unreadCount"], second["archived"]) == (jid(BIA), 1, False)
    assert first["lastMessageAt"] >= second["lastMessageAt"]


def test_marking_a_chat_read_brings_its_unread_count_to_zero(admin_client, session):
    inject(admin_client, session, event="message", **{"from": ANA, "text": "oi"})
    inject(admin_client, session, event="message", **{"from": ANA, "text": "oi?"})
    read = admin_client.post("/api/chats/read", {"sessionId": str(session.pk), "chatId": ANA}, format="json")
    assert read.status_code == 200
    assert chats(admin_client, session)["data"][0]["unreadCount"] == 0


def test_own_messages_move_a_chat_up_without_unread(admin_client, session):
    inject(admin_client, session, event="message", **{"from": ANA, "text": "oi"})
    sent = admin_client.post(
        "/api/messages/send", {"sessionId": str(session.pk), "to": BIA, "text": "olá"}, format="json"
    )
    assert sent.status_code == 200
    data = chats(admin_client, session)["data"]
    assert [(c["id"], c["unreadCount"]) for c in data] == [(jid(BIA), 0), (jid(ANA), 1)]


def test_groups_are_chats_named_by_their_subject_and_archiving_shows(admin_client, session):
    created = admin_client.post(
        "/api/groups",
        {"sessionId": str(session.pk), "subject": "Equipe", "participants": [ANA]},
        format="json",
    )
    group = created.json()["group"]["id"]
    inject(admin_client, session, event="message", **{"from": ANA, "chat": group, "text": "oi grupo"})
    inject(admin_client, session, event="chat_archive", chat=group, archived=True)
    chat = chats(admin_client, session)["data"][0]
    assert (chat["id"], chat["name"], chat["isGroup"], chat["unreadCount"]) == (group, "Equipe", True, 1)
    assert chat["archived"] is True


def test_chats_paginate_like_the_sessions_list(admin_client, session):
    for number in (ANA, BIA, "5511911110003"):
        inject(admin_client, session, event="message", **{"from": number, "text": "oi"})
    body = chats(admin_client, session, page=2, limit=2)
    assert body["meta"] == {"total": 3, "page": 2, "limit": 2, "totalPages": 2}
    assert len(body["data"]) == 1
    assert admin_client.get("/api/chats", {"sessionId": str(session.pk), "limit": 0}).status_code == 400


def test_contacts_come_from_push_names_contact_cards_and_group_participants(admin_client, session):
    inject(admin_client, session, event="message", **{"from": ANA, "pushName": "Ana", "text": "oi"})
    card = {"displayName": "Carla Loja", "phoneNumber": "5511933330001"}
    inject(admin_client, session, event="message", type="contacts", contacts=[card], **{"from": ANA})
    admin_client.post(
        "/api/groups",
        {"sessionId": str(session.pk), "subject": "Equipe", "participants": [BIA]},
        format="json",
    )
    response = admin_client.get("/api/contacts", {"sessionId": str(session.pk)})
    assert response.status_code == 200
    body = response.json()
    assert body["meta"]["total"] == 3
    assert body["data"] == [
        {"jid": jid(ANA), "name": "", "pushName": "Ana", "blocked": False},
        {"jid": jid(BIA), "name": "", "pushName": "", "blocked": False},
        {"jid": "5511933330001@s.whatsapp.net", "name": "Carla Loja", "pushName": "", "blocked": False},
    ]


def test_lists_are_read_by_viewers_and_need_a_session(keyed_client, make_key, session):
    viewer = keyed_client(make_key("viewer"))
    assert viewer.get("/api/chats", {"sessionId": str(session.pk)}).status_code == 200
    assert viewer.get("/api/contacts", {"sessionId": str(session.pk)}).status_code == 200
    missing = viewer.get("/api/chats")
    assert missing.status_code == 400 and missing.json()["error"] == "VALIDATION_ERROR"
    unknown = viewer.get("/api/contacts", {"sessionId": "7d0c1a52-0000-4000-8000-000000000000"})
    assert unknown.status_code == 404 and unknown.json()["error"] == "SESSION_NOT_FOUND"


def test_a_contacts_picture_is_a_url_or_null_when_hidden_or_absent(admin_client, session):
    def picture(who):
        response = admin_client.get("/api/contacts/picture", {"sessionId": str(session.pk), "jid": who})
        assert response.status_code == 200, response.content
        return response.json()

    shown = picture(ANA)
    assert shown["jid"] == jid(ANA) and shown["url"].startswith("https://")
    assert picture(ANA) == shown  # deterministic
    assert picture(HIDDEN) == {"jid": jid(HIDDEN), "url": None}
    assert picture(NOBODY) == {"jid": jid(NOBODY), "url": None}
    assert picture("120363999999999999@g.us")["url"] is None
    assert picture(session.jid)["url"] is None  # no own picture set yet


def test_a_picture_needs_a_jid_and_a_connected_session(admin_client, session, make_session):
    bad = admin_client.get("/api/contacts/picture", {"sessionId": str(session.pk)})
    assert bad.status_code == 400
    idle = make_session("idle")
    response = admin_client.get("/api/contacts/picture", {"sessionId": idle["id"], "jid": ANA})
    assert response.status_code == 409 and response.json()["error"] == "SESSION_NOT_CONNECTED"
