"""Mentions through the public API on the sandbox: `mentions` on texts, media captions and polls,
`mentionAll` in a group (400 outside one), mentions received, in the history and on the events; an
official channel refuses them naming its engine."""

from __future__ import annotations

import base64

import pytest

from messaging.models import Message
from webhooks.models import Event

pytestmark = pytest.mark.django_db

ANA = "5511911110001"
BIA = "5511911110002"
LID = "190000111222333@lid"
IMAGE = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8


def jid(number: str) -> str:
    return f"{number}@s.whatsapp.net"


def post(client, path, session, **body):
    return client.post(f"/api/messages/{path}", {"sessionId": str(session.pk), **body}, format="json")


def group_of(client, session) -> str:
    body = {"sessionId": str(session.pk), "subject": "Equipe", "participants": [ANA, BIA]}
    response = client.post("/api/groups", body, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()["group"]["id"]


def echo_of(message_id: str) -> dict:
    return Event.objects.get(name="message", data__id=message_id).data


def test_a_text_mentions_numbers_and_linked_ids_in_its_history_and_its_event(admin_client, session):
    response = post(admin_client, "send", session, to=ANA, text=f"@{BIA} olá", mentions=[BIA, LID, BIA])
    assert response.status_code == 200, response.content
    message_id = response.json()["messageId"]
    assert Message.objects.get(message_id=message_id).content["mentions"] == [jid(BIA), LID]
    assert echo_of(message_id)["mentions"] == [jid(BIA), LID]


def test_a_text_with_a_link_preview_keeps_its_mentions_and_its_preview(admin_client, session):
    preview = {"url": "https://ponte.example/a", "title": "Ponte"}
    text = f"@{BIA} veja https://ponte.example/a"
    response = post(admin_client, "send", session, to=ANA, text=text, linkPreview=preview, mentions=[BIA])
    assert response.status_code == 200, response.content
    message_id = response.json()["messageId"]
    content = Message.objects.get(message_id=message_id).content
    assert (content["mentions"], content["linkPreview"]["title"]) == ([jid(BIA)], "Ponte")
    echo = echo_of(message_id)
    assert (echo["mentions"], echo["linkPreview"]["url"]) == ([jid(BIA)], "https://ponte.example/a")


def test_a_text_without_mentions_keeps_no_mentions_key(admin_client, session):
    message_id = post(admin_client, "send", session, to=ANA, text="olá").json()["messageId"]
    assert "mentions" not in Message.objects.get(message_id=message_id).content
    assert "mentions" not in echo_of(message_id)


def test_mention_all_names_every_participant_of_the_group_but_the_session(admin_client, session):
    group = group_of(admin_client, session)
    response = post(admin_client, "send", session, to=group, text="@todos", mentionAll=True, mentions=[LID])
    assert response.status_code == 200, response.content
    mentioned = Message.objects.get(message_id=response.json()["messageId"]).content["mentions"]
    assert mentioned == [jid(ANA), jid(BIA), LID]
    assert session.jid not in mentioned


def test_mention_all_outside_a_group_is_400(admin_client, session):
    response = post(admin_client, "send", session, to=ANA, text="@todos", mentionAll=True)
    assert response.status_code == 400
    assert "mentionAll" in response.json()["message"]


def test_a_bad_mention_is_400_naming_the_field(admin_client, session):
    response = post(admin_client, "send", session, to=ANA, text="x", mentions=["not-a-number"])
    assert response.status_code == 400
    assert "mentions" in response.json()["message"]


def test_a_media_caption_and_a_poll_mention_people(admin_client, session):
    image = base64.b64encode(IMAGE).decode()
    media = post(
        admin_client, "media", session, to=ANA, type="image", base64=image, caption="@b", mentions=[BIA]
    )
    assert media.status_code == 200, media.content
    assert echo_of(media.json()["messageId"])["mentions"] == [jid(BIA)]
    assert Message.objects.get(message_id=media.json()["messageId"]).content["mentions"] == [jid(BIA)]
    group = group_of(admin_client, session)
    poll = post(
        admin_client, "poll", session, to=group, name="Almoço?", options=["Sim", "Não"], mentionAll=True
    )
    assert poll.status_code == 200, poll.content
    assert Message.objects.get(message_id=poll.json()["messageId"]).content["mentions"] == [
        jid(ANA),
        jid(BIA),
    ]


def test_a_voice_note_cannot_mention(admin_client, session):
    voice = base64.b64encode(b"OggS-voice").decode()
    response = post(admin_client, "media", session, to=ANA, type="voice", base64=voice, mentions=[BIA])
    assert response.status_code == 400
    assert "mentions" in response.json()["message"]


def test_mentions_received_are_on_the_event_and_in_the_history(admin_client, session):
    body = {"event": "message", "from": ANA, "text": f"@{BIA} veja", "mentions": [BIA, LID]}
    response = admin_client.post(f"/api/sandbox/sessions/{session.pk}/inbound", body, format="json")
    assert response.status_code == 201, response.content
    message_id = response.json()["data"]["id"]
    assert echo_of(message_id)["mentions"] == [jid(BIA), LID]
    history = admin_client.get("/api/messages", {"sessionId": str(session.pk), "chat": ANA}).json()["data"]
    assert history[0]["content"]["mentions"] == [jid(BIA), LID]


def test_an_official_channel_refuses_mentions_naming_its_engine(admin_client, official_session):
    cloud = official_session("whatsapp_cloud")
    response = post(admin_client, "send", cloud, to=ANA, text="olá", mentions=[BIA])
    assert response.status_code == 400
    assert response.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert "graph engine" in response.json()["message"]
    assert not Message.objects.filter(session=cloud).exists()
