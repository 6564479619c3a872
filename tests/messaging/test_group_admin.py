"""Group administration through the public API on the sandbox: participants added and removed,
subject, description, settings, invite links and joining by invite, with the `group_update` events that
say what changed; admin-only operations answer 403 like promote and demote."""

from __future__ import annotations

import pytest

from messaging.models import Group
from webhooks.models import Event

pytestmark = pytest.mark.django_db

ANA = "5511911110001"
BIA = "5511911110002"
CAIO = "5511911110003"
NOBODY = "5511911110000"


@pytest.fixture
def session(connected_session):
    return connected_session()


@pytest.fixture
def group(admin_client, session) -> str:
    response = admin_client.post(
        "/api/groups",
        {"sessionId": str(session.pk), "subject": "Equipe", "participants": [ANA]},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()["group"]["id"]


def jid(number: str) -> str:
    return f"{number}@s.whatsapp.net"


def post(client, path, session, **body):
    return client.post(f"/api/groups/{path}", {"sessionId": str(session.pk), **body}, format="json")


def put(client, path, session, **body):
    return client.put(f"/api/groups/{path}", {"sessionId": str(session.pk), **body}, format="json")


def test_adding_participants_reports_each_ones_status_and_a_group_join(admin_client, session, group):
    response = post(
        admin_client, "participants/add", session, groupJid=group, participants=[BIA, ANA, NOBODY]
    )
    assert response.status_code == 200, response.content
    assert response.json() == {
        "success": True,
        "results": [
            {"jid": jid(BIA), "status": "added"},
            {"jid": jid(ANA), "status": "already_a_participant"},
            {"jid": jid(NOBODY), "status": "not_on_whatsapp"},
        ],
    }
    joined = Event.objects.filter(name="group_join", chat=group).order_by("created_at").last()
    assert joined.data["participants"] == [jid(BIA)] and joined.data["by"] == session.jid
    assert {"jid": jid(BIA), "admin": False} in Group.objects.get(jid=group).participants


def test_removing_participants_reports_each_ones_status_and_a_group_leave(admin_client, session, group):
    response = post(
        admin_client, "participants/remove", session, groupJid=group, participants=[ANA, CAIO, session.jid]
    )
    assert response.status_code == 200, response.content
    assert response.json()["results"] == [
        {"jid": jid(ANA), "status": "removed"},
        {"jid": jid(CAIO), "status": "not_a_participant"},
        {"jid": session.jid, "status": "not_allowed"},
    ]
    left = Event.objects.get(name="group_leave", chat=group)
    assert left.data["participants"] == [jid(ANA)]
    assert [p["jid"] for p in Group.objects.get(jid=group).participants] == [session.jid]


def test_subject_description_and_settings_change_and_say_what_changed(admin_client, session, group):
    response = put(admin_client, "subject", session, groupJid=group, subject="Vendas")
    assert response.status_code == 200, response.content
    assert response.json()["subject"] == "Vendas" and response.json()["id"] == group
    response = put(admin_client, "description", session, groupJid=group, description="Só vendas")
    assert response.json()["description"] == "Só vendas"
    response = put(admin_client, "settings", session, groupJid=group, announce=True, locked=True)
    assert (response.json()["announce"], response.json()["locked"]) == (True, True)
    updates = [e.data for e in Event.objects.filter(name="group_update", chat=group).order_by("created_at")]
    assert [u["changed"] for u in updates] == [["subject"], ["description"], ["announce", "locked"]]
    assert updates[0]["subject"] == "Vendas"
    assert updates[1]["description"] == "Só vendas"
    assert (updates[2]["announce"], updates[2]["locked"]) == (True, True)
    row = Group.objects.get(jid=group)
    assert (row.subject, row.description, row.announce, row.locked) == ("Vendas", "Só vendas", True, True)
    listed = admin_client.get(f"/api/groups/list?sessionId={session.pk}").json()["groups"][0]
    assert (listed["description"], listed["announce"], listed["locked"]) == ("Só vendas", True, True)


def test_settings_need_at_least_one_of_announce_and_locked(admin_client, session, group):
    response = put(admin_client, "settings", session, groupJid=group)
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"


@pytest.mark.parametrize(
    "path,body",
    [
        ("subject", {"subject": ""}),
        ("subject", {"subject": "x" * 101}),
        ("description", {"description": "x" * 2049}),
        ("settings", {"announce": "maybe"}),
    ],
)
def test_bad_group_changes_are_400(admin_client, session, group, path, body):
    assert put(admin_client, path, session, groupJid=group, **body).status_code == 400


def test_the_invite_link_is_stable_until_revoked_and_a_revoked_code_cannot_join(
    admin_client, session, group, connected_session
):
    first = admin_client.get(f"/api/groups/invite?sessionId={session.pk}&groupJid={group}")
    assert first.status_code == 200, first.content
    code = first.json()["code"]
    assert first.json() == {"code": code, "url": f"https://chat.whatsapp.com/{code}"}
    again = admin_client.get(f"/api/groups/invite?sessionId={session.pk}&groupJid={group}")
    assert again.json()["code"] == code
    revoked = post(admin_client, "invite/revoke", session, groupJid=group)
    assert revoked.status_code == 200 and revoked.json()["code"] != code
    assert Event.objects.filter(name="group_update", chat=group, data__changed=["invite"]).exists()
    other = connected_session(name="other", phone="5511977770001")
    refused = post(admin_client, "join", other, code=code)
    assert refused.status_code == 404
    assert refused.json()["error"] == "INVITE_NOT_FOUND"
    joined = post(admin_client, "join", other, code=revoked.json()["url"])
    assert joined.status_code == 200, joined.content
    record = joined.json()
    assert record["id"] == group and record["subject"] == "Equipe"
    assert {"jid": other.jid, "admin": False} in record["participants"]
    assert Event.objects.filter(name="group_join", session=other, chat=group).exists()
    # The inviting session sees the newcomer join.
    assert Event.objects.filter(
        name="group_join", session=session, chat=group, data__participants=[other.jid]
    )
    assert Group.objects.filter(session=other, jid=group, is_member=True).exists()


def test_an_unknown_invite_code_is_404_and_a_malformed_one_400(admin_client, session):
    assert post(admin_client, "join", session, code="AbCdEf123456").json()["error"] == "INVITE_NOT_FOUND"
    assert post(admin_client, "join", session, code="not a code!").status_code == 400


def test_admin_only_operations_are_403_for_a_participant_who_is_not_admin(
    admin_client, session, group, connected_session
):
    code = admin_client.get(f"/api/groups/invite?sessionId={session.pk}&groupJid={group}").json()["code"]
    member = connected_session(name="member", phone="5511977770002")
    assert post(admin_client, "join", member, code=code).status_code == 200
    for response in (
        post(admin_client, "participants/add", member, groupJid=group, participants=[BIA]),
        post(admin_client, "participants/remove", member, groupJid=group, participants=[ANA]),
        put(admin_client, "settings", member, groupJid=group, announce=True),
        admin_client.get(f"/api/groups/invite?sessionId={member.pk}&groupJid={group}"),
        post(admin_client, "invite/revoke", member, groupJid=group),
    ):
        assert response.status_code == 403, response.content
        assert response.json()["statusCode"] == 403
    # Anyone renames an unlocked group; once it is locked only admins do.
    assert put(admin_client, "subject", member, groupJid=group, subject="Nós").status_code == 200
    assert put(admin_client, "settings", session, groupJid=group, locked=True).status_code == 200
    assert put(admin_client, "subject", member, groupJid=group, subject="Eles").status_code == 403
    assert put(admin_client, "description", member, groupJid=group, description="x").status_code == 403


def test_in_an_announce_group_only_admins_send(admin_client, session, group, connected_session):
    code = admin_client.get(f"/api/groups/invite?sessionId={session.pk}&groupJid={group}").json()["code"]
    member = connected_session(name="member", phone="5511977770002")
    post(admin_client, "join", member, code=code)
    put(admin_client, "settings", session, groupJid=group, announce=True)
    body = {"sessionId": str(member.pk), "to": group, "text": "oi"}
    assert admin_client.post("/api/messages/send", body, format="json").status_code == 403
    body["sessionId"] = str(session.pk)
    assert admin_client.post("/api/messages/send", body, format="json").status_code == 200


def test_a_group_the_session_is_not_in_is_404(admin_client, session):
    response = put(admin_client, "subject", session, groupJid="120363999999999999@g.us", subject="x")
    assert response.status_code == 404


def test_writes_need_an_operator_and_the_invite_a_viewer(keyed_client, make_key, session, group):
    viewer = keyed_client(make_key("viewer"))
    assert post(viewer, "participants/add", session, groupJid=group, participants=[BIA]).status_code == 403
    assert put(viewer, "subject", session, groupJid=group, subject="x").status_code == 403
    assert post(viewer, "join", session, code="AbCdEf123456").status_code == 403
    assert viewer.get(f"/api/groups/invite?sessionId={session.pk}&groupJid={group}").status_code == 200


def test_a_registered_webhook_receives_group_update_with_what_changed(admin_client, session, group, settings):
    import json

    from tests.webhooks.support import LOOPBACK, Receiver
    from webhooks.models import Delivery
    from webhooks.outbox import drains as outbox

    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = [LOOPBACK]
    receiver = Receiver().start()
    try:
        body = {"sessionId": str(session.pk), "url": receiver.url, "events": ["group_update", "group_join"]}
        assert admin_client.post("/gateway/webhooks", body, format="json").status_code == 200
        put(admin_client, "settings", session, groupJid=group, announce=True)
        post(admin_client, "participants/add", session, groupJid=group, participants=[BIA])
        for delivery in Delivery.objects.order_by("id"):  # one attempt may send the target's whole batch
            outbox.delivery_attempt(delivery_id=delivery.pk)
        bodies = [json.loads(r.body) for r in receiver.received]
        assert [b["event"] for b in bodies] == ["group_update", "group_join"]
        assert (bodies[0]["data"]["changed"], bodies[0]["data"]["announce"]) == (["announce"], True)
        assert bodies[1]["data"]["participants"] == [jid(BIA)]
    finally:
        receiver.stop()
