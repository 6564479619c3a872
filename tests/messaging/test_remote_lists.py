"""Lists, forwards and link previews travel to engine processes like every operation: their values
cross the bus unchanged inside the one `send` command, and on PostgreSQL a `run_engine` process hosting
the sandbox driver answers them through the API."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from messaging.engines import base
from messaging.engines.remote import COMMANDS, bus
from messaging.models import Message

POSTGRES = not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
CUSTOMER = "5511988880002"


@pytest.mark.parametrize(
    "value",
    [
        base.ListMessage("t", "b", (base.ListSection("S", (base.ListRow("r", "R", "d"),)),), "T", "F"),
        base.LinkPreview("https://a.example", "A", "d", b"\xff\xd8"),
        base.ForwardContent(type="contacts", display_name="2", cards=(base.ForwardCard("A", "v"),)),
        base.ForwardContent(type="media", media=base.MediaPayload("image", b"x", "image/png", "", "c")),
        base.ForwardContent(type="poll", name="Q", options=("a", "b"), selectable_count=2),
        base.OutgoingList(
            to="5511988880002@s.whatsapp.net",
            message=base.ListMessage("t", "b", (base.ListSection("S", (base.ListRow("r", "R"),)),)),
        ),
        base.OutgoingTextPreview(
            to="5511988880002@s.whatsapp.net",
            text="https://a.example",
            preview=base.LinkPreview("https://a.example", "A", "", b"\x89PNG"),
            quoted=base.Quoted(message_id="3EB0Q", participant="p", text="q"),
        ),
        base.OutgoingForward(
            to="5511988880002@s.whatsapp.net",
            content=base.ForwardContent(type="media", media=base.MediaPayload("image", b"x", "image/png")),
            original_type="image",
            original={"caption": "c", "sha256": "ab", "size": 1},
        ),
    ],
)
def test_the_list_forward_and_preview_values_cross_the_bus_unchanged(value):
    assert bus.decode(json.loads(json.dumps(bus.encode(value)))) == value


def test_lists_forwards_and_previews_travel_as_the_one_send_command():
    for kind in (base.OutgoingList, base.OutgoingTextPreview, base.OutgoingForward):
        assert kind in base.OUTGOING_KINDS and bus.VALUE_TYPES[kind.__name__] is kind
    assert not {"send_list", "send_forward", "send_text_preview"} & set(COMMANDS)
    assert "send" in COMMANDS


if POSTGRES:

    def test_an_engine_process_sends_lists_forwards_and_previews(start_engine, admin_client):
        start_engine()
        session_id = admin_client.post("/api/sessions", {"name": "remote"}, format="json").json()["id"]
        admin_client.post(f"/api/sessions/{session_id}/connect")
        scanned = admin_client.post(f"/api/sandbox/sessions/{session_id}/scan", {}, format="json")
        assert scanned.status_code == 200
        base_body = {"sessionId": session_id, "to": CUSTOMER}
        rows = [{"rowId": "r1", "title": "One"}]
        listed = {
            **base_body,
            "text": "Pick",
            "buttonText": "Open",
            "sections": [{"title": "S", "rows": rows}],
        }
        sent = admin_client.post("/api/messages/list", listed, format="json")
        assert sent.status_code == 200, sent.json()
        card = {"url": "https://a.example", "title": "A"}
        text = {**base_body, "text": "https://a.example", "linkPreview": card}
        previewed = admin_client.post("/api/messages/send", text, format="json")
        assert previewed.status_code == 200, previewed.json()
        forward = {"sessionId": session_id, "to": "5511977770003", "chat": CUSTOMER}
        forwarded = admin_client.post(
            "/api/messages/forward", {**forward, "messageId": previewed.json()["messageId"]}, format="json"
        )
        assert forwarded.status_code == 200, forwarded.json()
        assert (
            Message.objects.get(message_id=sent.json()["messageId"]).content["list"]["buttonText"] == "Open"
        )
        copy = Message.objects.get(message_id=forwarded.json()["messageId"])
        assert copy.content["forwarded"] is True and copy.content["text"] == "https://a.example"
