"""RemoteEngine and `run_engine`: the bus's values, placement on the least loaded process, the per-process
cap, no process at all (502 while the rest of the API answers), and the configuration checks."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.test import override_settings

from messaging.checks import check_engine, remote_engine_errors
from messaging.engines import base
from messaging.engines.remote import bus
from tests.messaging.engine_support import REMOTE, owner_of
from webhooks.models import Event

# RemoteEngine needs PostgreSQL (E004): the tests with engine processes exist only on it (never skipped).
POSTGRES = not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")


@pytest.mark.parametrize(
    "value",
    [
        base.QrCode("2@a", datetime(2026, 11, 23, tzinfo=UTC)),
        base.ConnectResult("qr", base.QrCode("2@a", datetime(2026, 11, 23, tzinfo=UTC))),
        base.Sent(
            message_id="3EB0", chat="5511@s.whatsapp.net", timestamp=datetime(2026, 11, 23, tzinfo=UTC)
        ),
        base.OutgoingText(to="5511@s.whatsapp.net", text="oi", quoted=base.Quoted("M", "p", "t")),
        base.OutgoingPoll(to="5511@s.whatsapp.net", name="Lunch?", options=("a", "b"), selectable_count=2),
        [base.ContactStatus("5511", "5511@s.whatsapp.net", True)],
        base.GroupInfo("1@g.us", "G", 1, 2, "o", (base.Participant("o", True), base.Participant("p"))),
        [base.ParticipantResult("p", "promoted")],
        (base.Quoted("M", "p", "t"), [base.Button("a", "A")], base.ContactCard("Ana", "5511", "ACME")),
        {"image": b"\x89PNG\x00", "content_type": "image/png"},
    ],
)
def test_contract_values_cross_the_bus_unchanged(value):
    import json

    decoded = bus.decode(json.loads(json.dumps(bus.encode(value))))
    expected = list(value) if isinstance(value, tuple) else value
    assert decoded == expected


def test_engine_errors_cross_the_bus_with_their_kind():
    with pytest.raises(base.EngineNotFound) as raised:
        bus.raise_error(bus.error_reply(base.EngineNotFound("no group", kind="group")))
    assert raised.value.kind == "group"
    with pytest.raises(base.EngineRefused):
        from messaging.engines.sandbox_pairing import SandboxRefused

        bus.raise_error(bus.error_reply(SandboxRefused("expired")))
    with pytest.raises(base.EngineUnavailableError):
        bus.raise_error({"ok": False, "error": "SomethingElse"})


def test_the_remote_engine_needs_redis_and_postgresql():
    with override_settings(MESSAGING_ENGINE=REMOTE, ENGINE_REDIS_URL=""):
        assert "messaging.E003" in [e.id for e in check_engine(None)]
    sqlite = remote_engine_errors(
        redis_url="redis://127.0.0.1:1/0", database_engine="django.db.backends.sqlite3"
    )
    assert [e.id for e in sqlite] == ["messaging.E004"]
    postgres = remote_engine_errors(
        redis_url="redis://127.0.0.1:1/0", database_engine="django.db.backends.postgresql"
    )
    assert postgres == []


def test_run_engine_refuses_to_start_without_redis_or_with_an_unknown_driver(settings, engine_redis):
    from django.core.management import CommandError, call_command

    settings.ENGINE_REDIS_URL = ""
    with pytest.raises(CommandError, match="need Redis"):
        call_command("run_engine")
    settings.ENGINE_REDIS_URL = engine_redis.url
    with pytest.raises(CommandError, match="Unknown ENGINE_DRIVER 'nokia'"):
        call_command("run_engine", "--driver", "nokia")


@pytest.mark.django_db
def test_with_no_engine_process_commands_are_502_and_the_rest_of_the_api_answers(
    engine_redis, settings, admin_client
):
    settings.MESSAGING_ENGINE = REMOTE
    settings.ENGINE_REDIS_URL = engine_redis.url
    engine_redis.flush()
    session_id = admin_client.post("/api/sessions", {"name": "s"}, format="json").json()["id"]
    response = admin_client.post(f"/api/sessions/{session_id}/connect")
    assert response.status_code == 502 and response.json()["error"] == "ENGINE_UNAVAILABLE"
    gateway = admin_client.post(f"/gateway/sessions/{session_id}/pair/qr")
    assert gateway.status_code == 502 and gateway.json() == {"error": "Engine unavailable"}
    assert admin_client.get("/api/sessions").status_code == 200
    assert admin_client.get(f"/api/sessions/{session_id}").json()["engine"] == "remote"


@pytest.mark.django_db
def test_an_unreachable_bus_is_502(settings, admin_client, make_session):
    from tests.messaging.engine_support import free_port

    settings.MESSAGING_ENGINE = REMOTE
    settings.ENGINE_REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    session_id = make_session()["id"]
    assert admin_client.post(f"/api/sessions/{session_id}/connect").status_code == 502


if POSTGRES:

    def test_new_sessions_go_to_the_least_loaded_process_and_the_cap_holds(
        start_engine, admin_client, engine_redis
    ):
        first = start_engine(max_sessions=2)
        ids = []
        for name in ("a", "b"):
            session_id = admin_client.post("/api/sessions", {"name": name}, format="json").json()["id"]
            assert admin_client.post(f"/api/sessions/{session_id}/connect").status_code == 200
            ids.append(session_id)
        assert {owner_of(engine_redis.url, s) for s in ids} == {first.id}
        # The first process is full: the next session waits for room (502), then goes to a new process.
        third = admin_client.post("/api/sessions", {"name": "c"}, format="json").json()["id"]
        assert admin_client.post(f"/api/sessions/{third}/connect").status_code == 502
        second = start_engine()
        assert admin_client.post(f"/api/sessions/{third}/connect").status_code == 200
        assert owner_of(engine_redis.url, third) == second.id
        fourth = admin_client.post("/api/sessions", {"name": "d"}, format="json").json()["id"]
        admin_client.post(f"/api/sessions/{fourth}/connect")
        assert owner_of(engine_redis.url, fourth) == second.id  # the least loaded (1 < 2)

    def test_deleting_a_session_releases_its_lease(start_engine, admin_client, engine_redis):
        start_engine()
        session_id = admin_client.post("/api/sessions", {"name": "a"}, format="json").json()["id"]
        admin_client.post(f"/api/sessions/{session_id}/connect")
        assert owner_of(engine_redis.url, session_id) is not None
        assert admin_client.delete(f"/api/sessions/{session_id}").status_code == 200
        assert owner_of(engine_redis.url, session_id) is None

    def test_an_engine_process_takes_over_paired_sessions_at_start_without_a_new_pairing(
        transactional_db, engine_redis, settings, admin_client
    ):
        # Paired by the in-process sandbox: credentials stored, nobody hosting them.
        ids = []
        for name in ("a", "b", "c"):
            session_id = admin_client.post("/api/sessions", {"name": name}, format="json").json()["id"]
            admin_client.post(f"/api/sessions/{session_id}/connect")
            assert (
                admin_client.post(f"/api/sandbox/sessions/{session_id}/scan", {}, format="json").status_code
                == 200
            )
            ids.append(session_id)
        unpaired = admin_client.post("/api/sessions", {"name": "d"}, format="json").json()["id"]
        from tests.messaging.engine_support import EngineProcess, wait_until

        engine_redis.flush()
        settings.MESSAGING_ENGINE = REMOTE
        settings.ENGINE_REDIS_URL = engine_redis.url
        engine = EngineProcess(engine_redis.url).start()
        try:
            wait_until(
                lambda: all(owner_of(engine_redis.url, s) == engine.id for s in ids),
                timeout=30,
                what="takeover",
            )
            assert owner_of(engine_redis.url, unpaired) is None  # nothing stored to resume
            pairing = Event.objects.filter(name__in=["qr", "connected"]).count()
            sent = admin_client.post(
                "/api/messages/send",
                {"sessionId": ids[0], "to": "5511988880002", "text": "hi"},
                format="json",
            )
            assert sent.status_code == 200, sent.json()
            assert Event.objects.filter(name__in=["qr", "connected"]).count() == pairing
        finally:
            engine.stop()
