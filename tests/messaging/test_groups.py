"""Groups: create (3/min), list, leave, promote and demote (group admins only)."""

from __future__ import annotations

import pytest

from messaging.models import Group
from webhooks.models import Event

pytestmark = pytest.mark.django_db

ANA = "5511911110001"
BIA = "5511911110002"


def create(client, session, subject="Equipe", participants=(ANA, BIA)):
    return client.post(
        "/api/groups",
        {"sessionId": str(session.pk), "subject": subject, "participants": list(participants)},
        format="json",
    )


def test_create_a_group_with_the_session_as_owner_and_admin(admin_client, session):
    response = create(admin_client, session)
    assert response.status_code == 201
    group = response.json()["group"]
    assert group["id"].endswith("@g.us")
    assert group["subject"] == "Equipe"
    assert group["owner"] == session.jid
    assert group["size"] == 3
    assert {"jid": session.jid, "admin": True} in group["participants"]
    assert {"jid": f"{ANA}@s.whatsapp.net", "admin": False} in group["participants"]
    assert isinstance(group["creation"], int) and group["subjectTime"] == group["creation"]
    assert Group.objects.get(jid=group["id"]).size == 3
    assert Event.objects.filter(name="group_join", chat=group["id"]).count() == 1


@pytest.mark.parametrize(
    "body",
    [
        {"subject": "", "participants": [ANA]},
        {"subject": "x", "participants": []},
        {"subject": "x", "participants": ["+1"]},
    ],
)
def test_create_validation(admin_client, session, body):
    response = admin_client.post("/api/groups", {"sessionId": str(session.pk), **body}, format="json")
    assert response.status_code == 400


def test_create_is_limited_to_three_per_minute(admin_client, session):
    for index in range(3):
        assert create(admin_client, session, subject=f"g{index}").status_code == 201
    assert create(admin_client, session, subject="g4").status_code == 429


def test_list_returns_the_seed_fields_and_viewers_may_read_it(
    admin_client, session, keyed_client, viewer_key
):
    created = create(admin_client, session).json()["group"]
    response = keyed_client(viewer_key).get(f"/api/groups/list?sessionId={session.pk}")
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert body["groups"] == [created]
    assert {"id", "subject", "subjectTime", "creation", "owner", "size"} <= set(body["groups"][0])


def test_list_needs_a_session_id(admin_client):
    assert admin_client.get("/api/groups/list").status_code == 400


def test_leave_a_group(admin_client, session):
    group = create(admin_client, session).json()["group"]["id"]
    response = admin_client.post(
        "/api/groups/leave", {"sessionId": str(session.pk), "groupJid": group}, format="json"
    )
    assert response.json() == {"success": True, "groupJid": group}
    assert admin_client.get(f"/api/groups/list?sessionId={session.pk}").json()["groups"] == []
    assert Group.objects.get(jid=group).is_member is False
    assert Event.objects.filter(name="group_leave", chat=group).count() == 1
    again = admin_client.post(
        "/api/groups/leave", {"sessionId": str(session.pk), "groupJid": group}, format="json"
    )
    assert again.status_code == 404


def test_leave_needs_a_group_jid(admin_client, session):
    response = admin_client.post(
        "/api/groups/leave", {"sessionId": str(session.pk), "groupJid": ANA}, format="json"
    )
    assert response.status_code == 400


def _participants(client, session, action, group, participants):
    return client.post(
        f"/api/groups/participants/{action}",
        {"sessionId": str(session.pk), "groupJid": group, "participants": participants},
        format="json",
    )


def test_promote_and_demote(admin_client, session):
    group = create(admin_client, session).json()["group"]["id"]
    promoted = _participants(admin_client, session, "promote", group, [ANA, "5511999999999"]).json()
    assert promoted == {
        "success": True,
        "results": [
            {"jid": f"{ANA}@s.whatsapp.net", "status": "promoted"},
            {"jid": "5511999999999@s.whatsapp.net", "status": "not_a_participant"},
        ],
    }
    stored = {p["jid"]: p["admin"] for p in Group.objects.get(jid=group).participants}
    assert stored[f"{ANA}@s.whatsapp.net"] is True
    demoted = _participants(admin_client, session, "demote", group, [ANA]).json()
    assert demoted["results"] == [{"jid": f"{ANA}@s.whatsapp.net", "status": "demoted"}]


def test_promote_without_admin_rights_is_403(admin_client, session):
    group = "120363000000000888@g.us"
    admin_client.post(
        f"/api/sandbox/sessions/{session.pk}/inbound",
        {"event": "group_join", "group": group, "participants": [session.jid, ANA], "by": BIA},
        format="json",
    )
    for action in ("promote", "demote"):
        response = _participants(admin_client, session, action, group, [ANA])
        assert response.status_code == 403
        assert "admin" in response.json()["message"]


def test_promote_in_an_unknown_group_is_404(admin_client, session):
    assert (
        _participants(admin_client, session, "promote", "120363000000000999@g.us", [ANA]).status_code == 404
    )


def test_groups_need_a_connected_session_and_an_operator(
    admin_client, make_session, keyed_client, viewer_key
):
    from messaging.models import Session

    idle = Session.objects.get(pk=make_session("idle")["id"])
    assert create(admin_client, idle).status_code == 409
    assert admin_client.get(f"/api/groups/list?sessionId={idle.pk}").status_code == 409
    assert create(keyed_client(viewer_key), idle).status_code == 403
