"""Engine processes failing: SIGKILL, SIGTERM, all of them down, Redis restarted. Real `run_engine`
processes, a private redis-server (never the shared one), the test database. Bounds are the issue's.

RemoteEngine needs PostgreSQL (system check messaging.E004), so these tests exist only on it."""

from __future__ import annotations

import time

import pytest
from django.conf import settings

from messaging.models import Session
from tests.messaging.contract import CUSTOMER
from tests.messaging.engine_support import owner_of, wait_until
from webhooks.models import Event

if not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    pytestmark = pytest.mark.django_db(transaction=True)

    def _paired(admin_client) -> str:
        session_id = admin_client.post("/api/sessions", {"name": "f"}, format="json").json()["id"]
        assert admin_client.post(f"/api/sessions/{session_id}/connect").status_code == 200
        scan = admin_client.post(f"/api/sandbox/sessions/{session_id}/scan", {}, format="json")
        assert scan.status_code == 200, scan.json()
        return session_id

    def _send(admin_client, session_id: str, text: str):
        return admin_client.post(
            "/api/messages/send", {"sessionId": session_id, "to": CUSTOMER, "text": text}, format="json"
        )

    def _inbound(admin_client, session_id: str, text: str):
        body = {"event": "message", "from": CUSTOMER, "text": text}
        return admin_client.post(f"/api/sandbox/sessions/{session_id}/inbound", body, format="json")

    def _pairing_events(session_id: str) -> int:
        return Event.objects.filter(session_id=session_id, name__in=["qr", "connected"]).count()

    def _engines(start_engine, admin_client, redis_url):
        first = start_engine()
        session_id = _paired(admin_client)
        second = start_engine()
        owner = owner_of(redis_url, session_id)
        assert owner in (first.id, second.id)
        return session_id, (first, second) if owner == first.id else (second, first)

    def test_sigkill_of_the_owner_moves_the_session_without_a_new_pairing(
        start_engine, admin_client, engine_redis
    ):
        session_id, (owner, other) = _engines(start_engine, admin_client, engine_redis.url)
        pairing = _pairing_events(session_id)
        owner.kill()
        _, took = wait_until(
            lambda: owner_of(engine_redis.url, session_id) == other.id, timeout=30, what="the takeover"
        )
        sent = _send(admin_client, session_id, "after the crash")
        assert sent.status_code == 200, sent.json()
        assert _inbound(admin_client, session_id, "still here").status_code == 201
        assert _pairing_events(session_id) == pairing  # no new QR, no new pairing
        assert Session.objects.get(pk=session_id).status == "connected"
        texts = [e.data["text"] for e in Event.objects.filter(session_id=session_id, name="message")]
        assert {"after the crash", "still here"} <= set(texts)
        print(f"takeover after SIGKILL: {took:.1f} s")

    def test_sigterm_hands_the_session_over_within_five_seconds(start_engine, admin_client, engine_redis):
        session_id, (owner, other) = _engines(start_engine, admin_client, engine_redis.url)
        started = time.monotonic()
        assert owner.terminate() == 0
        wait_for_owner = lambda: owner_of(engine_redis.url, session_id) == other.id  # noqa: E731
        wait_until(wait_for_owner, timeout=max(0.1, 5 - (time.monotonic() - started)), what="the handover")
        assert _send(admin_client, session_id, "after the handover").status_code == 200

    def test_with_every_engine_down_commands_are_502_within_the_timeout_and_the_api_answers(
        start_engine, admin_client, settings
    ):
        settings.ENGINE_COMMAND_TIMEOUT_SECONDS = 3
        engine = start_engine()
        session_id = _paired(admin_client)
        engine.kill()
        started = time.monotonic()
        response = _send(admin_client, session_id, "nobody home")
        waited = time.monotonic() - started
        assert response.status_code == 502 and response.json()["error"] == "ENGINE_UNAVAILABLE"
        assert waited < settings.ENGINE_COMMAND_TIMEOUT_SECONDS + 2
        assert admin_client.get("/api/sessions").status_code == 200
        assert admin_client.get(f"/api/sessions/{session_id}").json()["status"] == "connected"

    def test_a_redis_restart_recovers_registrations_and_leases_without_a_manual_step(
        start_engine, admin_client, engine_redis
    ):
        engine = start_engine()
        session_id = _paired(admin_client)
        assert owner_of(engine_redis.url, session_id) == engine.id
        engine_redis.restart()  # no persistence: every key is gone
        wait_until(engine.registered, timeout=30, what="the engine to register again")
        wait_until(
            lambda: owner_of(engine_redis.url, session_id) == engine.id,
            timeout=30,
            what="the lease to recover",
        )
        sent = _send(admin_client, session_id, "after the restart")
        assert sent.status_code == 200, sent.json()
