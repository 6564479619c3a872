"""Chat actions, blocks and labels travel to engine processes: the events they return cross the bus
unchanged, RemoteEngine has each command, and on PostgreSQL a `run_engine` process hosting the sandbox
driver answers them through the API (the events recorded by the calling process)."""

from __future__ import annotations

import json

from django.conf import settings

from messaging.engines.chat_contract import CHAT_ACTION_COMMANDS
from messaging.engines.chat_events import ChatMuteEvent, ContactBlockEvent, LabelEditEvent
from messaging.engines.events import ChatArchiveEvent
from messaging.engines.remote import RemoteEngine, bus

POSTGRES = not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")


def test_the_returned_events_cross_the_bus_unchanged():
    value = [
        ChatArchiveEvent(chat_jid="1@s.whatsapp.net", archived=True, timestamp=5),
        ChatMuteEvent(chat_jid="1@s.whatsapp.net", muted_until=None),
        ContactBlockEvent(jid="2@s.whatsapp.net", blocked=False),
        LabelEditEvent(label_id="3", label_name="VIP", color=19),
    ]
    assert bus.decode(json.loads(json.dumps(bus.encode(value)))) == value


def test_the_remote_engine_sends_every_chat_action_command():
    for name in CHAT_ACTION_COMMANDS:
        assert getattr(RemoteEngine, name).__name__ == name


if POSTGRES:

    def test_an_engine_process_answers_chat_actions_blocks_and_labels(start_engine, admin_client):
        start_engine()
        session_id = admin_client.post("/api/sessions", {"name": "remote"}, format="json").json()["id"]
        admin_client.post(f"/api/sessions/{session_id}/connect")
        assert (
            admin_client.post(f"/api/sandbox/sessions/{session_id}/scan", {}, format="json").status_code
            == 200
        )
        chat = "5511988880002@s.whatsapp.net"
        pinned = admin_client.post(
            "/api/chats/pin", {"sessionId": session_id, "chatId": chat, "pinned": True}, format="json"
        )
        assert pinned.status_code == 200 and pinned.json()["pinned"] is True
        blocked = admin_client.post(
            "/api/contacts/block", {"sessionId": session_id, "jid": chat, "blocked": True}, format="json"
        )
        assert blocked.status_code == 200
        listed = admin_client.get("/api/contacts/blocked", {"sessionId": session_id}).json()["data"]
        assert [c["jid"] for c in listed] == [chat]
        label = admin_client.post(
            "/api/labels", {"sessionId": session_id, "name": "VIP", "color": 2}, format="json"
        )
        assert label.status_code == 201 and label.json()["id"] == "1"
        body = {"sessionId": session_id, "chatId": chat, "labelId": "1", "action": "add"}
        assert admin_client.post("/api/chats/labels", body, format="json").json()["labelIds"] == ["1"]
