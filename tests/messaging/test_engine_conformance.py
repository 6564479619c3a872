"""The engine conformance suite: every engine passes the same operations, error mappings and events.

Parametrised by engine: the in-process sandbox and the sandbox hosted by real `run_engine` processes
(RemoteEngine over a private redis-server). Every operation goes through the public API; every event
kind must reach a registered webhook (its delivery is in the outbox, rendered) and, for the kinds the
instance interface carries, a `meta` instance webhook. The next drivers join by adding a parameter.
"""

from __future__ import annotations

import base64
import io
from datetime import timedelta

import pytest
import segno
from django.conf import settings
from django.utils import timezone

from messaging.models import Group, SandboxDevice, Session
from tests.messaging.contract import CUSTOMER
from tests.messaging.engines import GUARDED
from tests.webhooks.instance_support import configure
from webhooks.meta import FIELDS
from webhooks.models import Delivery, Event
from webhooks.registered.services import webhook_create

ANA = "5511911110001"
# RemoteEngine needs PostgreSQL (system check messaging.E004): on the embedded SQLite default the
# remote parameter is not collected. It starts engine processes (a fixture asked for at run time, which
# tests/tiers.py cannot see at collection), so it is marked live here.
# "guarded-sandbox": the sandbox as if behind a network (not local), asking net.guard before every
# command RemoteEngine guards, so that every operation below proves its service and view call the engine
# in no transaction on any database (docs/decisions/0021).
ENGINES = ["sandbox", "guarded-sandbox"] + (
    []
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
    else [pytest.param("remote-sandbox", marks=pytest.mark.live)]
)
# Committed rows for every engine: engine processes read them from their own connections.
pytestmark = pytest.mark.django_db(transaction=True)
ALL_EVENTS = [
    "message",
    "message_ack",
    "connected",
    "disconnected",
    "qr",
    "group_join",
    "group_leave",
    "group_update",
    "call",
    "presence",
    "chat_archive",
    "health",
]


@pytest.fixture(params=ENGINES)
def engine(request, settings) -> str:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    if request.param == "remote-sandbox":
        request.getfixturevalue("start_engine")()
    if request.param == "guarded-sandbox":
        settings.MESSAGING_ENGINE = GUARDED
    return request.param


@pytest.fixture
def new_session(engine, admin_client, account):
    """A session with a registered webhook listening to every event and a `meta` instance webhook."""

    def make(name: str = "conformance") -> Session:
        response = admin_client.post("/api/sessions", {"name": name}, format="json")
        assert response.status_code == 201, response.json()
        session = Session.objects.get(pk=response.json()["id"])
        webhook_create(
            account=account, session_id=session.pk, url="http://127.0.0.1:9/hook", events=ALL_EVENTS
        )
        configure(session)
        return session

    return make


@pytest.fixture
def paired(new_session, admin_client) -> Session:
    session = new_session()
    assert admin_client.post(f"/api/sessions/{session.pk}/connect").status_code == 200
    response = admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/scan", {"phone": "5511999990001"}, format="json"
    )
    assert response.status_code == 200, response.json()
    session.refresh_from_db()
    return session


def post(client, path: str, session: Session, **body):
    return client.post(f"/api/{path}", {"sessionId": str(session.pk), **body}, format="json")


def registered_events(session: Session) -> list[str]:
    deliveries = Delivery.objects.filter(session=session, kind=Delivery.Kind.REGISTERED).order_by(
        "created_at"
    )
    return [d.payload["event"] for d in deliveries]


def instance_fields(session: Session) -> set[str]:
    deliveries = Delivery.objects.filter(session=session, kind=Delivery.Kind.INSTANCE)
    return {d.payload["entry"][0]["changes"][0]["field"] for d in deliveries}


# --- connection ------------------------------------------------------------------------------------


def test_connect_shows_a_qr_code_and_a_scan_pairs(new_session, admin_client):
    session = new_session()
    connect = admin_client.post(f"/api/sessions/{session.pk}/connect").json()
    assert connect["status"] == "qr" and connect["qrCode"].startswith("2@")
    qr = admin_client.get(f"/api/sessions/{session.pk}/qrcode").json()
    assert qr["qrCode"] == connect["qrCode"] and qr["qrCodeImage"].startswith("data:image/png;base64,")
    scan = admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/scan", {"phone": "5511999990001"}, format="json"
    )
    assert scan.status_code == 200 and scan.json()["status"] == "connected"
    assert admin_client.get(f"/api/sessions/{session.pk}").json()["status"] == "connected"
    assert registered_events(session) == ["qr", "connected"]
    assert {"qrcode", "connection"} <= instance_fields(session)
    again = admin_client.post(f"/api/sessions/{session.pk}/connect").json()
    assert again["status"] == "connected"  # a no-op


def test_an_expired_qr_code_is_replaced_by_a_new_one(new_session, admin_client):
    session = new_session()
    first = admin_client.post(f"/api/sessions/{session.pk}/connect").json()["qrCode"]
    SandboxDevice.objects.filter(session_id=session.pk).update(
        qr_expires_at=timezone.now() - timedelta(seconds=1)
    )
    second = admin_client.get(f"/api/sessions/{session.pk}/qrcode").json()["qrCode"]
    assert second != first and second.startswith("2@")
    assert [
        e.data["serial"] for e in Event.objects.filter(session=session, name="qr").order_by("created_at")
    ] == [
        1,
        2,
    ]


def test_pairing_by_code_and_a_wrong_code_is_refused(new_session, admin_client):
    session = new_session()
    code = admin_client.post(
        f"/api/sessions/{session.pk}/pairing-code", {"phoneNumber": "5511999990003"}, format="json"
    )
    assert code.status_code == 200, code.json()
    wrong = admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/scan", {"pairingCode": "AAAA-AAAA"}, format="json"
    )
    assert wrong.status_code == 400  # EngineRefused
    right = admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/scan", {"pairingCode": code.json()["pairingCode"]}, format="json"
    )
    assert right.status_code == 200 and right.json()["status"] == "connected"
    session.refresh_from_db()
    assert session.phone == "5511999990003"


def test_the_qr_code_of_a_paired_session_is_refused(paired, admin_client):
    response = admin_client.get(f"/api/sessions/{paired.pk}/qrcode")
    assert response.status_code == 400 and response.json()["error"] == "SESSION_NOT_IN_QR_STATE"


def test_logout_disconnects_and_delete_forgets(paired, admin_client):
    assert admin_client.post(f"/api/sessions/{paired.pk}/logout").json()["success"] is True
    paired.refresh_from_db()
    assert paired.status == "disconnected"
    assert registered_events(paired)[-1] == "disconnected"
    assert SandboxDevice.objects.get(session_id=paired.pk).credentials is None
    assert admin_client.delete(f"/api/sessions/{paired.pk}").status_code == 200
    assert not Session.objects.filter(pk=paired.pk).exists()
    assert not SandboxDevice.objects.filter(session_id=paired.pk).exists()


# --- messages --------------------------------------------------------------------------------------


def test_every_send_operation_answers_and_echoes_an_own_message(paired, admin_client):
    sent = post(admin_client, "messages/send", paired, to=CUSTOMER, text="Olá")
    assert sent.status_code == 200, sent.json()
    message_id = sent.json()["messageId"]
    replies = [
        post(admin_client, "messages/vcard", paired, to=CUSTOMER, displayName="Ana", phoneNumber=ANA),
        post(
            admin_client,
            "messages/vcards",
            paired,
            to=CUSTOMER,
            displayName="two",
            contacts=[
                {"displayName": "Ana", "phoneNumber": ANA},
                {"displayName": "Bia", "phoneNumber": CUSTOMER},
            ],
        ),
        post(
            admin_client,
            "messages/location",
            paired,
            to=CUSTOMER,
            latitude=-23.5,
            longitude=-46.6,
            name="MASP",
        ),
        post(
            admin_client,
            "messages/buttons",
            paired,
            to=CUSTOMER,
            text="Pick",
            buttons=[{"buttonId": "a", "buttonText": "A"}],
        ),
        post(admin_client, "messages/reaction", paired, to=CUSTOMER, messageId=message_id, reaction="👍"),
        post(admin_client, "messages/delete", paired, remoteJid=CUSTOMER, messageId=message_id, fromMe=True),
    ]
    assert [r.status_code for r in replies] == [200] * 6, [r.json() for r in replies]
    own = [
        e.data["type"] for e in Event.objects.filter(session=paired, name="message").order_by("created_at")
    ]
    assert own == ["text", "contacts", "contacts", "location", "buttons", "reaction", "revoked"]
    assert all(e.data["fromMe"] for e in Event.objects.filter(session=paired, name="message"))
    assert registered_events(paired).count("message") == 7


def test_a_session_whose_engine_lost_its_pairing_answers_409(paired, admin_client):
    SandboxDevice.objects.filter(session_id=paired.pk).update(credentials=None)
    response = post(admin_client, "messages/send", paired, to=CUSTOMER, text="hi")
    assert (
        response.status_code == 409 and response.json()["error"] == "SESSION_NOT_CONNECTED"
    )  # EngineNotConnected


def test_deleting_someone_elses_message_in_a_direct_chat_is_403(paired, admin_client):
    inbound = {"event": "message", "from": CUSTOMER, "text": "oi", "messageId": "3EB0IN"}
    assert (
        admin_client.post(f"/api/sandbox/sessions/{paired.pk}/inbound", inbound, format="json").status_code
        == 201
    )
    response = post(
        admin_client, "messages/delete", paired, remoteJid=CUSTOMER, messageId="3EB0IN", fromMe=False
    )
    assert response.status_code == 403, response.json()  # EngineNotAllowed


# --- contacts and profile ----------------------------------------------------------------------------


def test_contacts_check_and_the_own_profile(paired, admin_client):
    check = admin_client.get(f"/api/contacts/check?sessionId={paired.pk}&numbers={CUSTOMER},5511900000000")
    assert check.status_code == 200, check.json()
    assert [c["exists"] for c in check.json()["results"]] == [True, False]
    buffer = io.BytesIO()
    segno.make_qr("ponte").save(buffer, kind="png")
    image = base64.b64encode(buffer.getvalue()).decode()
    for path, body in (
        ("picture", {"image": image}),
        ("status", {"status": "Hi"}),
        ("name", {"name": "Loja"}),
    ):
        response = admin_client.put(
            f"/api/contacts/profile/{path}", {"sessionId": str(paired.pk), **body}, format="json"
        )
        assert response.status_code == 200, (path, response.json())
    device = SandboxDevice.objects.get(session_id=paired.pk)
    assert (device.about, device.push_name, bool(device.picture_sha256)) == ("Hi", "Loja", True)


# --- groups ----------------------------------------------------------------------------------------


def test_groups_create_list_promote_demote_leave(paired, admin_client):
    created = post(admin_client, "groups", paired, subject="Equipe", participants=[ANA, CUSTOMER])
    assert created.status_code == 201, created.json()
    jid = created.json()["group"]["id"]
    listed = admin_client.get(f"/api/groups/list?sessionId={paired.pk}").json()
    assert [g["id"] for g in listed["groups"]] == [jid]
    promoted = post(admin_client, "groups/participants/promote", paired, groupJid=jid, participants=[ANA])
    assert promoted.json()["results"] == [{"jid": f"{ANA}@s.whatsapp.net", "status": "promoted"}]
    demoted = post(admin_client, "groups/participants/demote", paired, groupJid=jid, participants=[ANA])
    assert demoted.json()["results"][0]["status"] == "demoted"
    assert post(admin_client, "groups/leave", paired, groupJid=jid).status_code == 200
    assert Group.objects.get(jid=jid).is_member is False
    assert {"group_join", "group_leave"} <= set(registered_events(paired))


def test_group_errors_map_to_404_and_403(paired, admin_client):
    unknown = post(admin_client, "groups/leave", paired, groupJid="120363000000000999@g.us")
    assert unknown.status_code == 404  # EngineNotFound(kind="group")
    group = "120363000000000777@g.us"
    joined = admin_client.post(
        f"/api/sandbox/sessions/{paired.pk}/inbound",
        {"event": "group_join", "group": group, "participants": [paired.jid], "by": CUSTOMER},
        format="json",
    )
    assert joined.status_code == 201, joined.json()
    refused = post(admin_client, "groups/participants/promote", paired, groupJid=group, participants=[ANA])
    assert refused.status_code == 403  # EngineNotAllowed: not an admin


# --- inbound: every event kind reaches the webhooks -----------------------------------------------------

INBOUND = [
    {"event": "message", "from": CUSTOMER, "text": "Olá", "pushName": "Cliente"},
    {
        "event": "message",
        "from": CUSTOMER,
        "type": "image",
        "mediaUrl": "https://m.example/i.jpg",
        "caption": "c",
    },
    {
        "event": "message",
        "from": CUSTOMER,
        "type": "audio",
        "mediaUrl": "https://m.example/a.ogg",
        "voice": True,
    },
    {
        "event": "message",
        "from": CUSTOMER,
        "type": "document",
        "mediaUrl": "https://m.example/d",
        "fileName": "d.pdf",
    },
    {
        "event": "message",
        "from": CUSTOMER,
        "type": "sticker",
        "mediaUrl": "https://m.example/s",
        "animated": True,
    },
    {"event": "message", "from": CUSTOMER, "type": "location", "latitude": 1.5, "longitude": 2.5},
    {
        "event": "message",
        "from": CUSTOMER,
        "type": "contacts",
        "contacts": [{"displayName": "A", "phoneNumber": ANA}],
    },
    {"event": "message", "from": CUSTOMER, "type": "reaction", "reactionTo": "X", "emoji": "❤️"},
    {"event": "message_ack", "messageId": "X", "status": "read", "chat": CUSTOMER},
    {"event": "presence", "from": CUSTOMER, "presence": "composing"},
    {"event": "call", "from": CUSTOMER, "video": True},
    {"event": "chat_archive", "chat": CUSTOMER},
    {"event": "health", "status": "LIMITED", "reason": "slow down"},
]


def test_every_inbound_event_kind_reaches_a_registered_and_an_instance_webhook(paired, admin_client):
    group = "120363000000000555@g.us"
    bodies = [
        *INBOUND,
        {
            "event": "group_join",
            "group": group,
            "participants": [paired.jid, ANA],
            "by": CUSTOMER,
            "subject": "G",
        },
        {"event": "group_update", "group": group, "subject": "G2", "by": CUSTOMER},
        {"event": "group_leave", "group": group, "participants": [ANA], "by": CUSTOMER},
    ]
    for body in bodies:
        response = admin_client.post(f"/api/sandbox/sessions/{paired.pk}/inbound", body, format="json")
        assert response.status_code == 201, (body, response.json())
    received = set(registered_events(paired))
    assert received == set(ALL_EVENTS) - {"disconnected"}
    assert instance_fields(paired) == {FIELDS[name] for name in received if name in FIELDS}
    types = [
        e.data["type"]
        for e in Event.objects.filter(session=paired, name="message", data__fromMe=False).order_by(
            "created_at"
        )
    ]
    assert types == ["text", "image", "audio", "document", "sticker", "location", "contacts", "reaction"]
    assert Group.objects.get(jid=group).subject == "G2"
