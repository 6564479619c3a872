"""Labels on the sandbox (issue 41): created, listed, changed and deleted; put on chats and taken off;
the chat list filtered by label; `label_edit` and `label_association` events from the API and from the
phone; role rules and errors."""

from __future__ import annotations

import pytest

from tests.messaging.contract import CUSTOMER, CUSTOMER_JID
from webhooks.models import Event

pytestmark = pytest.mark.django_db

OTHER_JID = "5511977776666@s.whatsapp.net"


def create(client, session, name="VIP", color=3):
    return client.post(
        "/api/labels", {"sessionId": str(session.pk), "name": name, "color": color}, format="json"
    )


def labels(client, session):
    reply = client.get("/api/labels", {"sessionId": str(session.pk)})
    assert reply.status_code == 200, reply.content
    return reply.json()["data"]


def label_chat(client, session, label_id, action="add", chat=CUSTOMER):
    body = {"sessionId": str(session.pk), "chatId": chat, "labelId": label_id, "action": action}
    return client.post("/api/chats/labels", body, format="json")


def events(session, name):
    return [
        e.data for e in Event.objects.filter(session=session, name=name).order_by("created_at", "sequence")
    ]


def test_labels_are_created_with_the_next_id_listed_and_emitted(admin_client, session):
    first = create(admin_client, session)
    assert first.status_code == 201, first.content
    assert first.json() == {"id": "1", "name": "VIP", "color": 3}
    assert create(admin_client, session, "Pago", 7).json()["id"] == "2"
    assert labels(admin_client, session) == [
        {"id": "1", "name": "VIP", "color": 3},
        {"id": "2", "name": "Pago", "color": 7},
    ]
    assert events(session, "label_edit")[0] | {"timestamp": 0} == {
        "labelId": "1",
        "name": "VIP",
        "color": 3,
        "deleted": False,
        "timestamp": 0,
    }


def test_a_color_outside_the_palette_is_refused(admin_client, session):
    reply = create(admin_client, session, color=20)
    assert reply.status_code == 400 and "color" in reply.json()["message"]


def test_a_label_is_renamed_recoloured_and_deleted(admin_client, session):
    create(admin_client, session)
    query = f"?sessionId={session.pk}"
    reply = admin_client.put(f"/api/labels/1{query}", {"name": "Ouro"}, format="json")
    assert reply.status_code == 200 and reply.json() == {"id": "1", "name": "Ouro", "color": 3}
    reply = admin_client.put(f"/api/labels/1{query}", {"color": 0}, format="json")
    assert reply.json() == {"id": "1", "name": "Ouro", "color": 0}
    assert admin_client.put(f"/api/labels/1{query}", {}, format="json").status_code == 400
    label_chat(admin_client, session, "1")
    reply = admin_client.delete(f"/api/labels/1{query}")
    assert reply.status_code == 200 and reply.json() == {"success": True, "id": "1"}
    assert labels(admin_client, session) == []
    assert events(session, "label_edit")[-1]["deleted"] is True
    gone = admin_client.delete(f"/api/labels/1{query}")
    assert gone.status_code == 404 and gone.json()["error"] == "LABEL_NOT_FOUND"


def test_labels_on_chats_filter_the_chat_list(admin_client, session):
    create(admin_client, session)
    create(admin_client, session, "Pago")
    reply = label_chat(admin_client, session, "1")
    assert reply.status_code == 200, reply.content
    assert reply.json() == {"success": True, "chatId": CUSTOMER_JID, "labelIds": ["1"]}
    assert label_chat(admin_client, session, "2").json()["labelIds"] == ["1", "2"]
    label_chat(admin_client, session, "2", chat=OTHER_JID)
    listed = admin_client.get("/api/chats", {"sessionId": str(session.pk), "labelId": "1"}).json()["data"]
    assert [c["id"] for c in listed] == [CUSTOMER_JID]
    listed = admin_client.get("/api/chats", {"sessionId": str(session.pk), "labelId": "2"}).json()["data"]
    assert {c["id"] for c in listed} == {CUSTOMER_JID, OTHER_JID}
    assert label_chat(admin_client, session, "1", "remove").json()["labelIds"] == ["2"]
    assert [e["labeled"] for e in events(session, "label_association")] == [True, True, True, False]
    unknown = label_chat(admin_client, session, "9")
    assert unknown.status_code == 404 and unknown.json()["error"] == "LABEL_NOT_FOUND"


def test_labels_made_on_the_phone_arrive_as_events(admin_client, session):
    inbound = f"/api/sandbox/sessions/{session.pk}/inbound"
    body = {"event": "label_association", "labelId": "5", "chat": CUSTOMER}
    assert admin_client.post(inbound, body, format="json").status_code == 201
    body = {"event": "label_edit", "labelId": "5", "name": "Novo cliente", "color": 1}
    assert admin_client.post(inbound, body, format="json").status_code == 201
    assert labels(admin_client, session) == [{"id": "5", "name": "Novo cliente", "color": 1}]
    listed = admin_client.get("/api/chats", {"sessionId": str(session.pk), "labelId": "5"}).json()["data"]
    assert [c["id"] for c in listed] == [CUSTOMER_JID]


def test_viewer_keys_list_labels_but_cannot_change_them(keyed_client, viewer_key, admin_client, session):
    create(admin_client, session)
    viewer = keyed_client(viewer_key)
    assert viewer.get("/api/labels", {"sessionId": str(session.pk)}).status_code == 200
    assert create(viewer, session).status_code == 403
    assert (
        viewer.put(f"/api/labels/1?sessionId={session.pk}", {"name": "x"}, format="json").status_code == 403
    )
    assert viewer.delete(f"/api/labels/1?sessionId={session.pk}").status_code == 403
    assert label_chat(viewer, session, "1").status_code == 403
