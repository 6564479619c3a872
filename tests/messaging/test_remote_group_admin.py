"""Group administration, pictures and settings travel to engine processes like every operation: their
values cross the bus unchanged, RemoteEngine has each command, and on PostgreSQL a `run_engine` process
hosting the sandbox driver answers them through the API."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from messaging.engines import base
from messaging.engines.remote import RemoteEngine, bus

POSTGRES = not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")


@pytest.mark.parametrize(
    "value",
    [
        base.GroupInvite("Code123", "https://chat.whatsapp.com/Code123"),
        base.SessionBehaviour(reject_calls=True, reject_call_message="Texto", always_online=True),
        base.GroupInfo("1@g.us", "G", 1, 2, "o", (base.Participant("o", True),), "Sobre", True, False),
        [base.ParticipantResult("p", "added"), base.ParticipantResult("q", "already_a_participant")],
    ],
)
def test_the_new_values_cross_the_bus_unchanged(value):
    assert bus.decode(json.loads(json.dumps(bus.encode(value)))) == value


def test_the_remote_engine_sends_every_new_command_and_an_invite_error_keeps_its_kind():
    for name in base.GROUP_ADMIN_COMMANDS:
        assert callable(getattr(RemoteEngine, name)), name
    with pytest.raises(base.EngineNotFound) as raised:
        bus.raise_error(bus.error_reply(base.EngineNotFound("revoked", kind="invite")))
    assert raised.value.kind == "invite"


if POSTGRES:

    def test_an_engine_process_answers_group_administration_and_settings(start_engine, admin_client):
        start_engine()
        session_id = admin_client.post("/api/sessions", {"name": "remote"}, format="json").json()["id"]
        admin_client.post(f"/api/sessions/{session_id}/connect")
        assert (
            admin_client.post(f"/api/sandbox/sessions/{session_id}/scan", {}, format="json").status_code
            == 200
        )
        body = {"sessionId": session_id, "subject": "Equipe", "participants": ["5511911110001"]}
        group = admin_client.post("/api/groups", body, format="json").json()["group"]["id"]
        invite = admin_client.get("/api/groups/invite", {"sessionId": session_id, "groupJid": group})
        assert invite.status_code == 200 and invite.json()["url"].endswith(invite.json()["code"])
        renamed = admin_client.put(
            "/api/groups/subject",
            {"sessionId": session_id, "groupJid": group, "subject": "Vendas"},
            format="json",
        )
        assert renamed.status_code == 200 and renamed.json()["subject"] == "Vendas"
        refused = admin_client.post(
            "/api/groups/join", {"sessionId": session_id, "code": "AbCdEf123456"}, format="json"
        )
        assert refused.status_code == 404 and refused.json()["error"] == "INVITE_NOT_FOUND"
        picture = admin_client.get("/api/contacts/picture", {"sessionId": session_id, "jid": "5511911110009"})
        assert picture.json() == {"jid": "5511911110009@s.whatsapp.net", "url": None}
        put = admin_client.put(f"/api/sessions/{session_id}/settings", {"alwaysOnline": True}, format="json")
        assert put.status_code == 200 and put.json()["alwaysOnline"] is True
