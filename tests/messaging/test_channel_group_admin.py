"""Official channels and the messaging-depth operations: group administration answers 400
OPERATION_NOT_SUPPORTED; chats and contacts come from Ponte's own store; pictures from Messenger's
profile (WhatsApp Cloud has none: 400); settings the Graph API cannot honour are 400, `readMessages`
marks each customer's message read through the Graph API."""

from __future__ import annotations

import pytest

from tests.messaging.channel_webhooks import (
    CUSTOMER,
    PSID,
    cloud_body,
    cloud_message,
    page_body,
    page_item,
    post_signed,
)

pytestmark = pytest.mark.django_db

GROUP = "120363000000000001@g.us"


@pytest.fixture
def cloud(official_session):
    return official_session("whatsapp_cloud")


@pytest.fixture
def messenger(official_session):
    return official_session("messenger", name="page")


def test_group_administration_is_not_supported_on_official_channels(admin_client, cloud, messenger):
    for session in (cloud, messenger):
        sid = str(session.pk)
        members = {"sessionId": sid, "groupJid": GROUP, "participants": [CUSTOMER]}
        replies = [
            admin_client.post("/api/groups/participants/add", members, format="json"),
            admin_client.post("/api/groups/participants/remove", members, format="json"),
            admin_client.put(
                "/api/groups/subject", {"sessionId": sid, "groupJid": GROUP, "subject": "x"}, format="json"
            ),
            admin_client.put(
                "/api/groups/description",
                {"sessionId": sid, "groupJid": GROUP, "description": "x"},
                format="json",
            ),
            admin_client.put(
                "/api/groups/settings", {"sessionId": sid, "groupJid": GROUP, "locked": True}, format="json"
            ),
            admin_client.get("/api/groups/invite", {"sessionId": sid, "groupJid": GROUP}),
            admin_client.post(
                "/api/groups/invite/revoke", {"sessionId": sid, "groupJid": GROUP}, format="json"
            ),
            admin_client.post("/api/groups/join", {"sessionId": sid, "code": "AbCdEf123456"}, format="json"),
        ]
        for reply in replies:
            assert reply.status_code == 400, reply.content
            assert reply.json()["error"] == "OPERATION_NOT_SUPPORTED"


def test_pictures_come_from_messenger_profiles_and_the_cloud_api_has_none(
    admin_client, graph, cloud, messenger
):
    shown = admin_client.get("/api/contacts/picture", {"sessionId": str(messenger.pk), "jid": PSID})
    assert shown.status_code == 200
    assert shown.json() == {"jid": f"{PSID}@s.whatsapp.net", "url": "https://example.invalid/p.jpg"}
    graph.refuse_profiles = True
    hidden = admin_client.get("/api/contacts/picture", {"sessionId": str(messenger.pk), "jid": PSID})
    assert hidden.status_code == 200 and hidden.json()["url"] is None
    refused = admin_client.get("/api/contacts/picture", {"sessionId": str(cloud.pk), "jid": CUSTOMER})
    assert refused.status_code == 400 and refused.json()["error"] == "OPERATION_NOT_SUPPORTED"


def test_settings_without_a_graph_api_equivalent_are_400(admin_client, cloud):
    for name in ("rejectCalls", "alwaysOnline", "syncFullHistory"):
        reply = admin_client.put(f"/api/sessions/{cloud.pk}/settings", {name: True}, format="json")
        assert reply.status_code == 400, reply.content
        assert reply.json()["error"] == "OPERATION_NOT_SUPPORTED" and name in reply.json()["message"]
    ok = admin_client.put(
        f"/api/sessions/{cloud.pk}/settings", {"readMessages": True, "ignoreGroups": True}, format="json"
    )
    assert ok.status_code == 200
    assert (ok.json()["readMessages"], ok.json()["ignoreGroups"], ok.json()["rejectCalls"]) == (
        True,
        True,
        False,
    )


def test_cloud_messages_make_chats_and_contacts_and_are_read_at_once_when_set(admin_client, graph, cloud):
    admin_client.put(f"/api/sessions/{cloud.pk}/settings", {"readMessages": True}, format="json")
    body = cloud_body(messages=[cloud_message("text", {"body": "oi"}, mid="wamid.IN9")], name="Maria")
    assert post_signed(admin_client, cloud, body).status_code == 200
    assert graph.sends()[-1].body == {
        "messaging_product": "whatsapp",
        "status": "read",
        "message_id": "wamid.IN9",
    }
    chats = admin_client.get("/api/chats", {"sessionId": str(cloud.pk)}).json()
    assert [(c["id"], c["name"], c["unreadCount"]) for c in chats["data"]] == [
        (f"{CUSTOMER}@s.whatsapp.net", "Maria", 0)
    ]
    contacts = admin_client.get("/api/contacts", {"sessionId": str(cloud.pk)}).json()["data"]
    assert contacts == [
        {"jid": f"{CUSTOMER}@s.whatsapp.net", "name": "", "pushName": "Maria", "blocked": False}
    ]


def test_messenger_messages_count_unread_without_the_setting(admin_client, graph, messenger):
    body = page_body(page_item(message={"mid": "m_IN1", "text": "oi"}))
    assert post_signed(admin_client, messenger, body).status_code == 200
    chat = admin_client.get("/api/chats", {"sessionId": str(messenger.pk)}).json()["data"][0]
    assert (chat["id"], chat["unreadCount"]) == (f"{PSID}@s.whatsapp.net", 1)
    assert not [c for c in graph.sends() if c.body.get("sender_action") == "mark_seen"]
