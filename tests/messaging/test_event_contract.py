"""The typed event contract (messaging.engines.events), the event sink named in settings, and the
boundaries: messaging never imports webhooks, views and the admin never touch an engine."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from messaging.engines.chat_events import (
    ChatMuteEvent,
    ChatPinEvent,
    ChatUnreadEvent,
    ContactBlockEvent,
    LabelAssociationEvent,
    LabelEditEvent,
)
from messaging.engines.events import (
    EVENT_TYPES,
    ButtonRef,
    CallEvent,
    Card,
    ChatArchiveEvent,
    ConnectedEvent,
    DisconnectedEvent,
    GroupJoinEvent,
    GroupLeaveEvent,
    GroupUpdateEvent,
    HealthEvent,
    Location,
    Member,
    MessageAckEvent,
    MessageEditedEvent,
    MessageEvent,
    PollRef,
    PollVoteEvent,
    PresenceEvent,
    QrEvent,
    QuotedRef,
    Reaction,
    event_from_data,
)
from messaging.engines.status_events import StatusEvent
from messaging.models import Session
from tests.messaging.contract import SEED_MESSAGE_FIELDS, SENDER_ID_FIELDS
from tests.messaging.engines import UNAVAILABLE
from webhooks.models import Event

ROOT = Path(__file__).resolve().parents[2]
CONTACT = "5511988887777@s.whatsapp.net"
GROUP = "120363025246125486@g.us"
MEDIA = {"media_url": "https://media.example/a", "media_id": "M1", "sha256": "abc", "mime_type": "x/y"}

EVERY_EVENT = [
    MessageEvent(id="1", chat_jid=CONTACT, sender=CONTACT, push_name="Ana", text="oi", timestamp=1),
    MessageEvent(id="2", chat_jid=CONTACT, type="image", caption="c", view_once=True, **MEDIA),
    MessageEvent(id="3", chat_jid=CONTACT, type="audio", voice=True, **MEDIA),
    MessageEvent(id="4", chat_jid=CONTACT, type="video", caption="v", **MEDIA),
    MessageEvent(id="5", chat_jid=CONTACT, type="document", file_name="a.pdf", caption="", **MEDIA),
    MessageEvent(id="6", chat_jid=CONTACT, type="sticker", animated=True, sticker_id="9", **MEDIA),
    MessageEvent(id="7", chat_jid=CONTACT, type="location", location=Location(-23.5, -46.6, "MASP", "Av")),
    MessageEvent(
        id="8",
        chat_jid=CONTACT,
        type="contacts",
        display_name="two",
        contacts=(Card("Ana", "5511977770000", "ACME"), Card(vcard="BEGIN:VCARD\nEND:VCARD")),
    ),
    MessageEvent(id="9", chat_jid=GROUP, type="reaction", reaction=Reaction("1", "👍")),
    MessageEvent(id="10", chat_jid=CONTACT, from_me=True, quoted=QuotedRef("1", CONTACT), text="re"),
    MessageEvent(id="11", chat_jid=CONTACT, type="buttons", buttons=(ButtonRef("a", "A"),), footer="f"),
    MessageEvent(id="12", chat_jid=CONTACT, type="button_reply", selected_id="a", selected_title="A"),
    MessageEvent(id="13", chat_jid=CONTACT, type="revoked", revoked_message_id="1", revoked_from_me=True),
    MessageEvent(
        id="14", chat_jid=CONTACT, text="old", is_history=True, sender_pn="5511", sender_lid="1@lid"
    ),
    MessageAckEvent(message_id="1", chat_jid=CONTACT, status="read", recipient=CONTACT, timestamp=2),
    MessageAckEvent(message_id="1", chat_jid=GROUP, status="failed", participant=CONTACT, error="gone"),
    PresenceEvent(sender=CONTACT, presence="composing", chat_jid=GROUP, last_seen=5),
    ConnectedEvent(jid="5511900000001@s.whatsapp.net", phone="5511900000001", push_name="Loja"),
    DisconnectedEvent(reason="logout"),
    QrEvent(qr_code="2@a,b,c,d", expires_at="2026-11-23T00:00:00+00:00", serial=2, image="data:x"),
    CallEvent(caller=CONTACT, call_id="C1", video=True, status="offer"),
    GroupJoinEvent(group=GROUP, participants=(CONTACT,), by=CONTACT, members=(Member(CONTACT, True),)),
    GroupLeaveEvent(group=GROUP, participants=(CONTACT,)),
    GroupUpdateEvent(group=GROUP, subject="New name", by=CONTACT),
    ChatArchiveEvent(chat_jid=CONTACT, archived=False),
    HealthEvent(status="BLOCKED", reason="banned"),
    MessageEvent(id="P1", chat_jid=CONTACT, type="poll", poll=PollRef("Q?", ("a", "b"), 2)),
    PollVoteEvent(
        poll_message_id="P1", voter=CONTACT, selected_options=("a",), chat_jid=CONTACT, timestamp=1
    ),
    PollVoteEvent(poll_message_id="P1", voter=CONTACT),
    MessageEditedEvent(message_id="M1", chat_jid=CONTACT, text="new", edited_at="2025-11-22T00:00:00+00:00"),
    ChatPinEvent(chat_jid=CONTACT, pinned=False, timestamp=3),
    ChatMuteEvent(chat_jid=GROUP, muted_until="2026-11-23T08:00:00+00:00"),
    ChatMuteEvent(chat_jid=GROUP),
    ChatUnreadEvent(chat_jid=CONTACT),
    ContactBlockEvent(jid=CONTACT, blocked=False),
    LabelEditEvent(label_id="3", label_name="VIP", color=19, deleted=True),
    LabelAssociationEvent(label_id="3", chat_jid=GROUP, labeled=False),
    StatusEvent(
        id="S1", sender=CONTACT, type="text", text="Oi", timestamp=1, background_color="#000000", font=3
    ),
    StatusEvent(
        id="S2", sender=CONTACT, type="image", caption="c", media_url="https://x", mime_type="image/jpeg"
    ),
    MessageEvent(id="V1", chat_jid=CONTACT, type="audio", voice=True, seconds=3, waveform=(0, 50, 100)),
]


def test_every_event_kind_has_a_dataclass_and_is_covered_here():
    assert set(EVENT_TYPES) == {type(e).name for e in EVERY_EVENT}
    assert {
        "message",
        "message_ack",
        "presence",
        "connected",
        "disconnected",
        "qr",
        "call",
        "group_join",
        "group_leave",
        "chat_archive",
    } <= set(EVENT_TYPES)


@pytest.mark.parametrize("event", EVERY_EVENT, ids=lambda e: f"{e.name}")
def test_every_event_survives_its_wire_form(event):
    import json

    data = json.loads(json.dumps(event.to_data()))
    assert event_from_data(event.name, data) == event


def test_a_message_always_carries_the_seed_fields_and_names_its_chat_three_times():
    data = MessageEvent(id="1", chat_jid=CONTACT).to_data()
    assert set(data) == set(SEED_MESSAGE_FIELDS + SENDER_ID_FIELDS)
    assert data["chat"] == data["chatId"] == data["remoteJid"] == CONTACT
    assert data["mediaUrl"] is None


def test_media_fields_have_one_spelling_each():
    data = MessageEvent(id="2", type="document", file_name="a.pdf", voice=False, **MEDIA).to_data()
    assert {"mimeType", "mediaUrl", "mediaId", "sha256", "fileName", "voice"} <= set(data)
    assert not {"mimetype", "filename", "ptt", "isVideo"} & set(data)


def test_events_are_frozen():
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        EVERY_EVENT[0].text = "changed"


# --- the sink ----------------------------------------------------------------------------------------

RECEIVED: list[dict] = []


def recording_sink(**kwargs) -> None:
    """A sink of another kind than the outbox: it keeps what it is given (MESSAGING_EVENT_SINK)."""
    RECEIVED.append(kwargs)


@pytest.mark.django_db
def test_engine_events_go_to_the_sink_named_in_settings(admin_client, make_session):
    RECEIVED.clear()
    session_id = make_session()["id"]
    with override_settings(MESSAGING_EVENT_SINK="tests.messaging.test_event_contract.recording_sink"):
        assert admin_client.post(f"/api/sessions/{session_id}/connect").status_code == 200
    (qr,) = RECEIVED
    # The sink gets the typed event itself, not its wire form.
    assert isinstance(qr["event"], QrEvent) and str(qr["session_id"]) == session_id
    assert qr["event"].qr_code.startswith("2@")
    assert not Event.objects.exists()  # the outbox was not the sink
    # Back to the default: the outbox records the next event.
    admin_client.post(f"/api/sandbox/sessions/{session_id}/scan", {}, format="json")
    assert Event.objects.filter(name="connected").count() == 1


# --- boundaries --------------------------------------------------------------------------------------


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_messaging_does_not_import_webhooks():
    offenders = []
    for path in (ROOT / "messaging").rglob("*.py"):
        for name in _imports(path):
            if name.startswith("webhooks"):
                offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_views_and_the_admin_never_touch_an_engine():
    forbidden = ("messaging.engines.sandbox", "messaging.engines.remote", "messaging.services.engine")
    paths = [*(ROOT / "messaging" / "api").glob("*.py"), ROOT / "messaging" / "admin.py"]
    offenders = [
        f"{path.name}: {name}"
        for path in paths
        for name in _imports(path)
        if name.startswith(forbidden) or name in ("messaging.engines.get_engine", "messaging.engines")
    ]
    assert offenders == []


@pytest.mark.django_db
def test_the_admin_scan_action_refuses_a_session_on_another_engine(client, make_session):
    session_id = make_session()["id"]
    Session.objects.filter(pk=session_id).update(engine=UNAVAILABLE)
    staff = get_user_model().objects.create_superuser("staff", "staff@example.com", "pw")
    client.force_login(staff)
    response = client.post(
        "/admin/messaging/session/", {"action": "sandbox_scan", "_selected_action": [session_id]}, follow=True
    )
    assert response.status_code == 200
    assert b"not a sandbox session" in response.content
    assert Session.objects.get(pk=session_id).status == "disconnected"
