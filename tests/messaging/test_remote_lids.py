"""Linked ids and mentions travel to engine processes like every operation: RemoteEngine has
`lid_lookup`, and on PostgreSQL a `run_engine` process hosting the sandbox driver answers
`GET /api/contacts/lid` from its store and sends to a `…@lid`, with mentions."""

from __future__ import annotations

from django.conf import settings

from messaging.engines import base
from messaging.engines.remote import RemoteEngine
from messaging.engines.sandbox_lids import sandbox_lid_of
from messaging.models import Message

POSTGRES = not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")


def test_the_remote_engine_sends_the_lid_lookup():
    assert base.LID_COMMANDS == ("lid_lookup",)
    assert callable(RemoteEngine.lid_lookup)


if POSTGRES:

    def test_an_engine_process_answers_the_lid_lookup_and_sends_to_a_linked_id_with_mentions(
        start_engine, admin_client
    ):
        start_engine()
        session_id = admin_client.post("/api/sessions", {"name": "remote"}, format="json").json()["id"]
        admin_client.post(f"/api/sessions/{session_id}/connect")
        scan = admin_client.post(f"/api/sandbox/sessions/{session_id}/scan", {}, format="json")
        assert scan.status_code == 200
        found = admin_client.get("/api/contacts/lid", {"sessionId": session_id, "id": "5511911110001"})
        assert found.status_code == 200, found.content
        assert found.json() == {"lid": sandbox_lid_of("5511911110001"), "pn": "5511911110001@s.whatsapp.net"}
        unknown = admin_client.get("/api/contacts/lid", {"sessionId": session_id, "id": "80000999888777@lid"})
        assert unknown.status_code == 404 and unknown.json()["error"] == "LID_NOT_FOUND"
        body = {"sessionId": session_id, "to": sandbox_lid_of("5511911110001"), "text": "olá"}
        sent = admin_client.post("/api/messages/send", body, format="json")
        assert sent.status_code == 200, sent.content
        mentioning = {**body, "mentions": ["5511911110002"]}
        sent = admin_client.post("/api/messages/send", mentioning, format="json")
        assert sent.status_code == 200, sent.content
        row = Message.objects.get(message_id=sent.json()["messageId"])
        assert row.content["mentions"] == ["5511911110002@s.whatsapp.net"]
