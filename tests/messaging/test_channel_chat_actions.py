"""Official channels and the chat actions of issue 41: WhatsApp Cloud blocks and unblocks through the
Block Users API (tested against the local Graph stand-in); everything the Graph API has no call for
(archive, pin, mute, mark unread, labels; blocks on Messenger and Instagram) answers 400
OPERATION_NOT_SUPPORTED naming the channel."""

from __future__ import annotations

import pytest

from tests.messaging.graph_standin import PHONE_NUMBER_ID, VERSION

pytestmark = pytest.mark.django_db

CUSTOMER = "5511988880002"
CUSTOMER_JID = f"{CUSTOMER}@s.whatsapp.net"


@pytest.fixture
def cloud(official_session):
    return official_session("whatsapp_cloud")


@pytest.fixture
def messenger(official_session):
    return official_session("messenger", name="page")


def post(client, path, session, **body):
    return client.post(f"/api/{path}", {"sessionId": str(session.pk), **body}, format="json")


def test_cloud_blocks_and_unblocks_through_the_block_users_api(admin_client, graph, cloud):
    reply = post(admin_client, "contacts/block", cloud, jid=CUSTOMER, blocked=True)
    assert reply.status_code == 200, reply.content
    call = graph.calls[-1]
    assert (call.method, call.path) == ("POST", f"/{VERSION}/{PHONE_NUMBER_ID}/block_users")
    assert call.body == {"messaging_product": "whatsapp", "block_users": [{"user": CUSTOMER}]}
    listed = admin_client.get("/api/contacts/blocked", {"sessionId": str(cloud.pk)}).json()["data"]
    assert [c["jid"] for c in listed] == [CUSTOMER_JID]
    refused = post(admin_client, "messages/send", cloud, to=CUSTOMER, text="oi")
    assert refused.status_code == 409 and refused.json()["error"] == "CONTACT_BLOCKED"
    assert not graph.sends()
    assert post(admin_client, "contacts/block", cloud, jid=CUSTOMER, blocked=False).status_code == 200
    assert graph.calls[-1].method == "DELETE"
    assert admin_client.get("/api/contacts/blocked", {"sessionId": str(cloud.pk)}).json()["data"] == []


def test_a_block_meta_refuses_for_the_number_is_400_and_not_recorded(admin_client, graph, cloud):
    reply = post(admin_client, "contacts/block", cloud, jid="5511988880009", blocked=True)
    assert reply.status_code == 400 and "Failed to block" in reply.json()["message"]
    assert admin_client.get("/api/contacts/blocked", {"sessionId": str(cloud.pk)}).json()["data"] == []


@pytest.mark.parametrize(
    ("path", "body", "what"),
    [
        ("chats/archive", {"chatId": CUSTOMER, "archived": True}, "archive chats"),
        ("chats/pin", {"chatId": CUSTOMER, "pinned": True}, "pin chats"),
        ("chats/mute", {"chatId": CUSTOMER, "until": None}, "mute chats"),
        ("chats/unread", {"chatId": CUSTOMER, "unread": True}, "mark chats unread"),
        ("labels", {"name": "VIP", "color": 1}, "manage labels"),
    ],
)
def test_what_the_graph_api_cannot_do_is_400_naming_the_channel(admin_client, graph, cloud, path, body, what):
    reply = post(admin_client, path, cloud, **body)
    assert reply.status_code == 400, reply.content
    assert reply.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert reply.json()["message"] == f"WhatsApp Cloud API sessions cannot {what}."


def test_messenger_cannot_block(admin_client, graph, messenger):
    reply = post(admin_client, "contacts/block", messenger, jid="12345678901234", blocked=True)
    assert reply.status_code == 400 and reply.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert "Messenger" in reply.json()["message"]
