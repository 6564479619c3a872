"""Channels (WhatsApp's newsletters), issue 41 item 10, on the sandbox: one session creates a channel,
another follows it by invite; only the owner posts (text and media) to its `…@newsletter` JID, a follower
is refused 403; the posts are listed by `GET /api/channels/messages`; official sessions are refused."""

from __future__ import annotations

import base64

import pytest

from messaging.status_models import Newsletter

pytestmark = pytest.mark.django_db

IMAGE = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 2


@pytest.fixture(autouse=True)
def media_dir(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "messaging_media": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "media")},
        },
    }


@pytest.fixture
def owner(connected_session):
    return connected_session("owner", "5511999990001")


@pytest.fixture
def reader(connected_session):
    return connected_session("reader", "5511999990002")


def create(client, session, **body):
    return client.post("/api/channels", {"sessionId": str(session.pk), **body}, format="json")


def listed(client, session) -> list[dict]:
    response = client.get("/api/channels", {"sessionId": str(session.pk)})
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def act(client, path: str, session, **body):
    return client.post(f"/api/{path}", {"sessionId": str(session.pk), **body}, format="json")


def test_a_channel_is_created_owned_and_followed_by_invite(admin_client, owner, reader):
    response = create(admin_client, owner, name="Ofertas", description="As melhores")
    assert response.status_code == 201, response.json()
    channel = response.json()
    assert channel["jid"].endswith("@newsletter") and channel["invite"] and channel["role"] == "owner"
    followed = act(
        admin_client, "channels/follow", reader, invite=f"https://whatsapp.com/channel/{channel['invite']}"
    )
    assert followed.status_code == 200, followed.json()
    assert (followed.json()["jid"], followed.json()["role"], followed.json()["name"]) == (
        channel["jid"],
        "follower",
        "Ofertas",
    )
    assert [(c["jid"], c["role"]) for c in listed(admin_client, owner)] == [(channel["jid"], "owner")]
    assert [(c["jid"], c["role"]) for c in listed(admin_client, reader)] == [(channel["jid"], "follower")]
    assert act(admin_client, "channels/unfollow", reader, jid=channel["jid"]).json() == {"success": True}
    assert listed(admin_client, reader) == []
    by_jid = act(admin_client, "channels/follow", reader, jid=channel["jid"])
    assert by_jid.status_code == 200 and by_jid.json()["role"] == "follower"


def test_only_the_owner_posts_text_and_media_and_the_posts_are_listed(admin_client, owner, reader):
    jid = create(admin_client, owner, name="Avisos").json()["jid"]
    act(admin_client, "channels/follow", reader, jid=jid)
    text = act(admin_client, "messages/send", owner, to=jid, text="Abrimos às 9h")
    assert text.status_code == 200, text.json()
    media = act(
        admin_client, "messages/media", owner, to=jid, type="image", base64=base64.b64encode(IMAGE).decode()
    )
    assert media.status_code == 200, media.json()
    refused = act(admin_client, "messages/send", reader, to=jid, text="Oi")
    assert refused.status_code == 403 and refused.json()["error"] == "CHANNEL_NOT_OWNED"
    unknown = act(admin_client, "messages/send", owner, to="120363999999999999@newsletter", text="Oi")
    assert unknown.status_code == 404 and unknown.json()["error"] == "CHANNEL_NOT_FOUND"
    posts = admin_client.get("/api/channels/messages", {"sessionId": str(owner.pk), "jid": jid}).json()
    assert [m["type"] for m in posts["data"]] == ["image", "text"] and posts["meta"]["total"] == 2
    # What a followed channel posts arrives as messages of its JID.
    arrived = admin_client.post(
        f"/api/sandbox/sessions/{reader.pk}/inbound",
        {"event": "message", "from": "5511999990001", "chat": jid, "text": "Abrimos às 9h"},
        format="json",
    )
    assert arrived.status_code == 201, arrived.json()
    seen = admin_client.get("/api/channels/messages", {"sessionId": str(reader.pk), "jid": jid}).json()
    assert [m["content"]["text"] for m in seen["data"]] == ["Abrimos às 9h"]


def test_unknown_channels_owners_unfollowing_and_bad_input_are_refused(admin_client, owner, reader):
    missing = act(admin_client, "channels/follow", reader, invite="NOPE")
    assert missing.status_code == 404 and missing.json()["error"] == "CHANNEL_NOT_FOUND"
    jid = create(admin_client, owner, name="Meu").json()["jid"]
    assert act(admin_client, "channels/unfollow", owner, jid=jid).status_code == 403
    assert act(admin_client, "channels/unfollow", reader, jid=jid).status_code == 404
    both = act(admin_client, "channels/follow", reader, jid=jid, invite="X")
    assert both.status_code == 400 and "exactly one" in both.json()["message"]
    assert act(admin_client, "channels/follow", reader, jid="123@g.us").status_code == 400
    assert create(admin_client, owner, name="").status_code == 400
    messages = admin_client.get("/api/channels/messages", {"sessionId": str(reader.pk), "jid": jid})
    assert messages.status_code == 404
    bad = admin_client.get("/api/channels/messages", {"sessionId": str(reader.pk), "jid": "x"})
    assert bad.status_code == 400
    assert Newsletter.objects.filter(session=reader).count() == 0


def test_official_channels_have_no_newsletters(admin_client, official_session, graph):
    cloud = official_session("whatsapp_cloud")
    response = create(admin_client, cloud, name="X")
    assert response.status_code == 400 and response.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert "WhatsApp Cloud API" in response.json()["message"]
    listing = admin_client.get("/api/channels", {"sessionId": str(cloud.pk)})
    assert listing.status_code == 400 and listing.json()["error"] == "OPERATION_NOT_SUPPORTED"
