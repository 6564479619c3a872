"""Chat and contact actions on the sandbox (issue 41): archive, pin, mute, mark unread and block
through the API and from the phone, the chat list's flags and filters, the events, blocked sends (409
CONTACT_BLOCKED) and the role rules."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from messaging.models import Chat
from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from webhooks.models import Event

pytestmark = pytest.mark.django_db

OTHER = "5511977776666"
OTHER_JID = f"{OTHER}@s.whatsapp.net"


def post(client, path, session, **body):
    return client.post(f"/api/{path}", {"sessionId": str(session.pk), **body}, format="json")


def inject(client, session, **body):
    return client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")


def chats(client, session, **query):
    reply = client.get("/api/chats", {"sessionId": str(session.pk), **query})
    assert reply.status_code == 200, reply.content
    return {c["id"]: c for c in reply.json()["data"]}


def events(session, name):
    found = Event.objects.filter(session=session, name=name).order_by("created_at", "sequence")
    return [e.data for e in found]


def test_archiving_unpins_the_chat_as_whatsapp_does(admin_client, session):
    post(admin_client, "chats/pin", session, chatId=CUSTOMER, pinned=True)
    reply = post(admin_client, "chats/archive", session, chatId=CUSTOMER, archived=True)
    assert (reply.json()["archived"], reply.json()["pinned"]) == (True, False)
    assert events(session, "chat_pin")[-1]["pinned"] is False


def test_archiving_pinning_and_marking_unread_answer_the_chat_and_emit_events(admin_client, session):
    reply = post(admin_client, "chats/archive", session, chatId=CUSTOMER, archived=True)
    assert reply.status_code == 200, reply.content
    assert reply.json()["id"] == CUSTOMER_JID and reply.json()["archived"] is True
    reply = post(admin_client, "chats/pin", session, chatId=CUSTOMER, pinned=True)
    assert reply.json()["pinned"] is True
    reply = post(admin_client, "chats/unread", session, chatId=CUSTOMER, unread=True)
    assert reply.json()["markedUnread"] is True
    assert events(session, "chat_archive")[-1] | {"timestamp": 0} == {
        "chat": CUSTOMER_JID,
        "archived": True,
        "timestamp": 0,
    }
    assert events(session, "chat_pin")[-1]["pinned"] is True
    assert events(session, "chat_unread")[-1]["unread"] is True
    listed = chats(admin_client, session)[CUSTOMER_JID]
    assert (listed["archived"], listed["pinned"], listed["markedUnread"]) == (True, True, True)


def test_muting_until_a_time_shows_it_and_null_unmutes(admin_client, session):
    until = (timezone.now() + timedelta(hours=8)).replace(microsecond=0)
    reply = post(admin_client, "chats/mute", session, chatId=CUSTOMER, until=until.isoformat())
    assert reply.status_code == 200, reply.content
    assert datetime.fromisoformat(reply.json()["mutedUntil"]) == until
    assert datetime.fromisoformat(events(session, "chat_mute")[-1]["mutedUntil"]) == until
    reply = post(admin_client, "chats/mute", session, chatId=CUSTOMER, until=None)
    assert reply.json()["mutedUntil"] is None
    assert events(session, "chat_mute")[-1]["mutedUntil"] is None


def test_a_mute_in_the_past_is_refused(admin_client, session):
    past = (timezone.now() - timedelta(minutes=1)).isoformat()
    reply = post(admin_client, "chats/mute", session, chatId=CUSTOMER, until=past)
    assert reply.status_code == 400 and "until" in reply.json()["message"]


def test_the_chat_list_filters_by_each_flag(admin_client, session):
    for number in (CUSTOMER, OTHER):
        inject(admin_client, session, event="message", **{"from": number, "text": "oi"})
    post(admin_client, "chats/pin", session, chatId=CUSTOMER, pinned=True)
    post(admin_client, "chats/archive", session, chatId=OTHER, archived=True)
    post(
        admin_client,
        "chats/mute",
        session,
        chatId=OTHER,
        until=(timezone.now() + timedelta(days=1)).isoformat(),
    )
    post(admin_client, "chats/unread", session, chatId=CUSTOMER, unread=True)
    assert set(chats(admin_client, session, pinned="true")) == {CUSTOMER_JID}
    assert set(chats(admin_client, session, pinned="false")) == {OTHER_JID}
    assert set(chats(admin_client, session, archived="true")) == {OTHER_JID}
    assert set(chats(admin_client, session, muted="true")) == {OTHER_JID}
    assert set(chats(admin_client, session, muted="false")) == {CUSTOMER_JID}
    assert set(chats(admin_client, session, markedUnread="true")) == {CUSTOMER_JID}
    bad = admin_client.get("/api/chats", {"sessionId": str(session.pk), "pinned": "maybe"})
    assert bad.status_code == 400 and "pinned" in bad.json()["message"]


def test_changes_made_on_the_phone_arrive_as_events_and_update_the_list(admin_client, session):
    until = (timezone.now() + timedelta(hours=1)).replace(microsecond=0).isoformat()
    for body in (
        {"event": "chat_pin", "chat": CUSTOMER},
        {"event": "chat_mute", "chat": CUSTOMER, "mutedUntil": until},
        {"event": "chat_unread", "chat": CUSTOMER, "unread": True},
        {"event": "chat_archive", "chat": CUSTOMER, "archived": True},
    ):
        assert inject(admin_client, session, **body).status_code == 201
    listed = chats(admin_client, session)[CUSTOMER_JID]
    assert (listed["pinned"], listed["markedUnread"], listed["archived"]) == (True, True, True)
    assert listed["mutedUntil"] is not None
    inject(admin_client, session, event="chat_pin", chat=CUSTOMER, pinned=False)
    assert chats(admin_client, session)[CUSTOMER_JID]["pinned"] is False


def test_reading_a_chat_clears_its_unread_mark(admin_client, session):
    inject(admin_client, session, event="message", **{"from": CUSTOMER, "text": "oi"})
    post(admin_client, "chats/unread", session, chatId=CUSTOMER, unread=True)
    post(admin_client, "chats/read", session, chatId=CUSTOMER)
    assert Chat.objects.get(session=session, jid=CUSTOMER_JID).marked_unread is False


def test_blocking_lists_the_contact_and_refuses_sends_to_it_with_409(admin_client, session):
    reply = post(admin_client, "contacts/block", session, jid=CUSTOMER, blocked=True)
    assert reply.status_code == 200, reply.content
    assert reply.json() == {"success": True, "jid": CUSTOMER_JID, "blocked": True}
    blocked = admin_client.get("/api/contacts/blocked", {"sessionId": str(session.pk)}).json()
    assert [c["jid"] for c in blocked["data"]] == [CUSTOMER_JID] and blocked["data"][0]["blocked"] is True
    assert events(session, "contact_block")[-1]["jid"] == CUSTOMER_JID
    for path, body in (
        ("messages/send", {"to": CUSTOMER, "text": "oi"}),
        ("messages/location", {"to": CUSTOMER, "latitude": 1.0, "longitude": 2.0}),
        ("messages/vcard", {"to": CUSTOMER, "displayName": "Ana", "phoneNumber": OTHER}),
        ("messages/poll", {"to": CUSTOMER, "name": "?", "options": ["a", "b"]}),
    ):
        refused = post(admin_client, path, session, **body)
        assert refused.status_code == 409, (path, refused.content)
        assert refused.json()["error"] == "CONTACT_BLOCKED"
    post(admin_client, "contacts/block", session, jid=CUSTOMER, blocked=False)
    assert post(admin_client, "messages/send", session, to=CUSTOMER, text="oi").status_code in (200, 201)
    assert admin_client.get("/api/contacts/blocked", {"sessionId": str(session.pk)}).json()["data"] == []


def test_a_block_made_on_the_phone_is_listed(admin_client, session):
    assert inject(admin_client, session, event="contact_block", jid=OTHER).status_code == 201
    blocked = admin_client.get("/api/contacts/blocked", {"sessionId": str(session.pk)}).json()["data"]
    assert [c["jid"] for c in blocked] == [OTHER_JID]


def test_a_number_not_on_whatsapp_cannot_be_blocked(admin_client, session):
    reply = post(admin_client, "contacts/block", session, jid="5511911110000", blocked=True)
    assert reply.status_code == 400


def test_a_group_the_session_is_not_in_cannot_be_archived(admin_client, session):
    reply = post(admin_client, "chats/archive", session, chatId="120363000000000001@g.us", archived=True)
    assert reply.status_code == 404


def test_viewer_keys_read_the_lists_but_cannot_act(keyed_client, viewer_key, admin_client, session):
    viewer = keyed_client(viewer_key)
    assert post(viewer, "chats/archive", session, chatId=CUSTOMER, archived=True).status_code == 403
    assert post(viewer, "contacts/block", session, jid=CUSTOMER, blocked=True).status_code == 403
    assert viewer.get("/api/contacts/blocked", {"sessionId": str(session.pk)}).status_code == 200
    assert viewer.get("/api/chats", {"sessionId": str(session.pk), "archived": "true"}).status_code == 200


def test_a_session_not_connected_answers_409(admin_client, make_session):
    created = make_session()
    reply = admin_client.post(
        "/api/chats/pin", {"sessionId": created["id"], "chatId": CUSTOMER, "pinned": True}, format="json"
    )
    assert reply.status_code == 409 and reply.json()["error"] == "SESSION_NOT_CONNECTED"
