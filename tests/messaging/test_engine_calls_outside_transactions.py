"""No engine command over the bus inside a transaction (issue 40 item 4, docs/decisions/0021): every
command RemoteEngine sends but the sandbox's injection of inbound events is refused by net.guard inside
one, and every service that sends one (pairing and the sandbox's scan, groups and their administration,
contact checks, settings, forget, chat actions, labels, linked ids, pictures) calls the engine in none,
through its API route, and records the answer in a short transaction of its own, coping with a session
deleted meanwhile.

The in-process proofs use the guarded sandbox (tests/messaging/engines.py: not local, asking net.guard
before every guarded command, as RemoteEngine does); on PostgreSQL the same services are driven against
a real `run_engine` process (and the conformance suite runs every operation on both engines)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import transaction

from messaging.engines.base import EngineUnavailableError
from messaging.engines.remote import COMMANDS, OUTSIDE_TRANSACTIONS, RemoteEngine
from messaging.errors import SessionNotFound
from messaging.models import Group, Session
from messaging.services import group_admin, groups, profile, session_settings, sessions
from net.guard import OutsideCallInTransaction
from tests.messaging.contract import CUSTOMER
from tests.messaging.engines import DELETED_MEANWHILE, GUARDED

pytestmark = pytest.mark.django_db
ANA = "5511911110001"
POSTGRES = not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
# The sandbox's injection of inbound events: its service runs the sandbox's work and its record as one
# unit on purpose (messaging.engines.remote: why it stays out).
KEPT_INSIDE = {"inject"}


def test_every_bus_command_but_the_sandbox_s_injection_is_called_outside_transactions():
    assert set(COMMANDS) - OUTSIDE_TRANSACTIONS == KEPT_INSIDE
    assert set(COMMANDS) >= OUTSIDE_TRANSACTIONS


@pytest.mark.parametrize("command", sorted(OUTSIDE_TRANSACTIONS))
def test_each_guarded_command_is_refused_inside_a_transaction_before_it_reaches_the_bus(
    command, settings, outside_calls_in_transaction
):
    settings.ENGINE_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens: a call that went out fails
    engine = RemoteEngine()
    with transaction.atomic(), pytest.raises(OutsideCallInTransaction, match=f"Engine command {command} "):
        engine.call("00000000-0000-0000-0000-000000000001", command, (), {})
    outside_calls_in_transaction.clear()
    with pytest.raises(EngineUnavailableError):  # outside one it goes to the bus (here: none)
        engine.call("00000000-0000-0000-0000-000000000001", command, (), {})


@pytest.mark.parametrize("command", sorted(KEPT_INSIDE))
def test_the_sandbox_s_injection_still_runs_inside_its_transaction(command, settings):
    settings.ENGINE_REDIS_URL = "redis://127.0.0.1:1/0"
    with transaction.atomic(), pytest.raises(EngineUnavailableError):
        RemoteEngine().call("00000000-0000-0000-0000-000000000001", command, (), {})


def post(client, path: str, session_id: str, **body):
    return client.post(f"/api/{path}", {"sessionId": session_id, **body}, format="json")


def put(client, path: str, session_id: str, **body):
    return client.put(f"/api/{path}", {"sessionId": session_id, **body}, format="json")


def test_every_moved_service_calls_the_engine_in_no_transaction_through_its_route(admin_client, settings):
    """Any call made inside the request's or the service's transaction fails the test (net.guard)."""
    settings.MESSAGING_ENGINE = GUARDED
    sid = admin_client.post("/api/sessions", {"name": "guarded"}, format="json").json()["id"]
    assert admin_client.post(f"/api/sessions/{sid}/connect").json()["status"] == "qr"
    assert admin_client.get(f"/api/sessions/{sid}/qrcode").status_code == 200
    assert admin_client.post(f"/gateway/sessions/{sid}/pair/qr").status_code == 200
    code = admin_client.post(
        f"/api/sessions/{sid}/pairing-code", {"phoneNumber": "5511999990001"}, format="json"
    )
    assert code.status_code == 200, code.json()
    scan = admin_client.post(f"/api/sandbox/sessions/{sid}/scan", {"phone": "5511999990001"}, format="json")
    assert scan.json()["status"] == "connected"
    reply = admin_client.put(f"/api/sessions/{sid}/settings", {"alwaysOnline": True}, format="json")
    assert reply.status_code == 200 and reply.json()["alwaysOnline"] is True
    check = admin_client.get("/api/contacts/check", {"sessionId": sid, "numbers": CUSTOMER})
    assert check.status_code == 200, check.json()
    picture = admin_client.get("/api/contacts/picture", {"sessionId": sid, "jid": CUSTOMER})
    assert picture.status_code == 200, picture.json()
    lid = admin_client.get("/api/contacts/lid", {"sessionId": sid, "id": CUSTOMER})
    assert lid.status_code in (200, 404), lid.json()

    created = post(admin_client, "groups", sid, subject="Equipe", participants=[CUSTOMER])
    assert created.status_code == 201, created.json()
    jid = created.json()["group"]["id"]
    assert Group.objects.get(jid=jid).subject == "Equipe"
    assert admin_client.get("/api/groups/list", {"sessionId": sid}).status_code == 200
    for path in ("groups/participants/add", "groups/participants/promote", "groups/participants/demote"):
        reply = post(admin_client, path, sid, groupJid=jid, participants=[ANA])
        assert reply.status_code == 200, (path, reply.json())
    for path, body in (
        ("groups/subject", {"subject": "Vendas"}),
        ("groups/description", {"description": "Sobre"}),
        ("groups/settings", {"locked": True}),
    ):
        reply = put(admin_client, path, sid, groupJid=jid, **body)
        assert reply.status_code == 200, (path, reply.json())
    group = Group.objects.get(jid=jid)
    assert (group.subject, group.description, group.locked) == ("Vendas", "Sobre", True)
    assert admin_client.get("/api/groups/invite", {"sessionId": sid, "groupJid": jid}).status_code == 200
    assert post(admin_client, "groups/invite/revoke", sid, groupJid=jid).status_code == 200
    joined = post(admin_client, "groups/join", sid, code="AbCdEf123456")
    assert joined.status_code == 404 and joined.json()["error"] == "INVITE_NOT_FOUND"
    assert (
        post(admin_client, "groups/participants/remove", sid, groupJid=jid, participants=[ANA]).status_code
        == 200
    )
    assert post(admin_client, "groups/leave", sid, groupJid=jid).status_code == 200
    assert Group.objects.get(jid=jid).is_member is False

    for path, body in (
        ("chats/archive", {"chatId": CUSTOMER, "archived": True}),
        ("chats/pin", {"chatId": CUSTOMER, "pinned": True}),
        ("chats/mute", {"chatId": CUSTOMER, "until": None}),
        ("chats/unread", {"chatId": CUSTOMER, "unread": True}),
        ("contacts/block", {"jid": CUSTOMER, "blocked": True}),
    ):
        reply = post(admin_client, path, sid, **body)
        assert reply.status_code == 200, (path, reply.json())
    label = post(admin_client, "labels", sid, name="VIP", color=3)
    assert label.status_code == 201, label.json()
    labelled = post(admin_client, "chats/labels", sid, chatId=CUSTOMER, labelId="1", action="add")
    assert labelled.status_code == 200, labelled.json()
    assert (
        admin_client.put(f"/api/labels/1?sessionId={sid}", {"name": "Ouro"}, format="json").status_code == 200
    )
    assert admin_client.delete(f"/api/labels/1?sessionId={sid}").status_code == 200

    assert admin_client.post(f"/api/sessions/{sid}/restart").status_code == 200
    assert admin_client.post(f"/api/sessions/{sid}/logout").status_code == 200
    assert Session.objects.get(pk=sid).status == "disconnected"
    assert admin_client.delete(f"/api/sessions/{sid}").status_code == 200
    assert not Session.objects.filter(pk=sid).exists()


def test_inside_a_callers_transaction_each_moved_service_is_refused(
    connected_session, settings, outside_calls_in_transaction
):
    session = connected_session()
    settings.MESSAGING_ENGINE = GUARDED
    calls = {
        "logout": lambda: sessions.session_logout(session=session),
        "restart": lambda: sessions.session_restart(session=session),
        "settings_apply": lambda: session_settings.session_settings_update(
            session=session, changes={"always_online": True}
        ),
        "check_contacts": lambda: profile.contacts_check(session=session, numbers=[CUSTOMER]),
        "group_create": lambda: groups.group_create(session=session, subject="G", participants=[CUSTOMER]),
        "group_list": lambda: groups.group_list(session=session),
        "group_join": lambda: group_admin.group_join(session=session, code="AbCdEf123456"),
        "forget": lambda: sessions.session_delete(session=session),
    }
    for command, call in calls.items():
        with transaction.atomic(), pytest.raises(OutsideCallInTransaction, match=f"engine {command} "):
            call()
    outside_calls_in_transaction.clear()
    assert Session.objects.filter(pk=session.pk).exists()


def test_a_session_deleted_while_the_engine_answered_leaves_nothing_to_record(connected_session, settings):
    settings.MESSAGING_ENGINE = DELETED_MEANWHILE
    first = connected_session()
    info = groups.group_create(session=first, subject="Equipe", participants=[CUSTOMER])
    assert info.subject == "Equipe"
    assert not Session.objects.filter(pk=first.pk).exists()
    assert not Group.objects.filter(jid=info.jid).exists()
    second = connected_session(name="second", phone="5511999990002")
    with pytest.raises(SessionNotFound):
        sessions.session_logout(session=second)


if POSTGRES:

    @pytest.mark.django_db(transaction=True)
    def test_an_engine_process_is_asked_outside_transactions_and_refused_inside_one(
        start_engine, admin_client, outside_calls_in_transaction
    ):
        start_engine()
        sid = admin_client.post("/api/sessions", {"name": "remote"}, format="json").json()["id"]
        session = Session.objects.get(pk=sid)
        with transaction.atomic(), pytest.raises(OutsideCallInTransaction, match="Engine command connect "):
            sessions.session_connect(session=session)
        outside_calls_in_transaction.clear()
        assert admin_client.post(f"/api/sessions/{sid}/connect").json()["status"] == "qr"
        scan = admin_client.post(
            f"/api/sandbox/sessions/{sid}/scan", {"phone": "5511999990001"}, format="json"
        )
        assert scan.status_code == 200, scan.json()
        session.refresh_from_db()
        for command, call in {
            "group_create": lambda: groups.group_create(session=session, subject="G", participants=[ANA]),
            "check_contacts": lambda: profile.contacts_check(session=session, numbers=[CUSTOMER]),
            "settings_apply": lambda: session_settings.session_settings_update(
                session=session, changes={"always_online": True}
            ),
            "forget": lambda: sessions.session_delete(session=session),
        }.items():
            with (
                transaction.atomic(),
                pytest.raises(OutsideCallInTransaction, match=f"Engine command {command} "),
            ):
                call()
        outside_calls_in_transaction.clear()
        info = groups.group_create(session=session, subject="Equipe", participants=[ANA])
        assert Group.objects.get(jid=info.jid).subject == "Equipe"
        assert [c.exists for c in profile.contacts_check(session=session, numbers=[CUSTOMER])] == [True]
        assert admin_client.post(f"/api/sessions/{sid}/logout").status_code == 200
        assert admin_client.delete(f"/api/sessions/{sid}").status_code == 200
        assert not Session.objects.filter(pk=sid).exists()
