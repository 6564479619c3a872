"""ponte_client's chats, contacts, group administration and session settings against a live Ponte on
the sandbox: typed results, typed errors, the async twins."""

from __future__ import annotations

import asyncio

import pytest
from ponte_client import (
    AsyncClient,
    Channel,
    Chat,
    Contact,
    Group,
    GroupInvite,
    NotFoundError,
    ParticipantStatus,
    PermissionDeniedError,
    SessionSettings,
    Status,
)

from messaging.models import Session as SessionRow
from messaging.services.sessions import sandbox_inject, sandbox_scan

ANA = "5511911110001"


@pytest.fixture
def paired(client):
    session = client.sessions.create("depth")
    client.sessions.connect(session.id)
    sandbox_scan(session=SessionRow.objects.get(pk=session.id), phone="5511999990001")
    return session.id


def test_chats_contacts_and_pictures_are_typed(client, paired) -> None:
    row = SessionRow.objects.get(pk=paired)
    sandbox_inject(
        session=row, event="message", data={"from": f"{ANA}@s.whatsapp.net", "pushName": "Ana", "text": "oi"}
    )
    chats = client.chats.list(paired)
    assert chats.total == 1 and isinstance(chats.items[0], Chat)
    assert (chats.items[0].id, chats.items[0].unread_count, chats.items[0].is_group) == (
        f"{ANA}@s.whatsapp.net",
        1,
        False,
    )
    contacts = client.contacts.list(paired)
    assert contacts.items == [Contact(f"{ANA}@s.whatsapp.net", "", "Ana")]
    assert client.contacts.picture(paired, ANA).startswith("https://")
    assert client.contacts.picture(paired, "5511911110009") is None


def test_group_administration_and_settings_are_typed(client, paired, key_of_role, ponte) -> None:
    group = client.groups.create(paired, "Equipe", [ANA])
    added = client.groups.add_participants(paired, group["id"], ["5511911110002", ANA])
    assert added == [
        ParticipantStatus("5511911110002@s.whatsapp.net", "added"),
        ParticipantStatus(f"{ANA}@s.whatsapp.net", "already_a_participant"),
    ]
    assert client.groups.remove_participants(paired, group["id"], [ANA])[0].status == "removed"
    renamed = client.groups.set_subject(paired, group["id"], "Vendas")
    assert isinstance(renamed, Group) and renamed.subject == "Vendas"
    assert client.groups.set_description(paired, group["id"], "Sobre").description == "Sobre"
    locked = client.groups.set_settings(paired, group["id"], locked=True)
    assert (locked.locked, locked.announce) == (True, False)
    invite = client.groups.invite(paired, group["id"])
    assert isinstance(invite, GroupInvite) and invite.url.endswith(invite.code)
    fresh = client.groups.revoke_invite(paired, group["id"])
    assert fresh.code != invite.code
    with pytest.raises(NotFoundError) as refused:
        client.groups.join(paired, invite.code)
    assert refused.value.error == "INVITE_NOT_FOUND"
    settings = client.sessions.update_settings(paired, reject_calls=True, reject_call_message="Texto")
    assert settings == SessionSettings(True, "Texto", False, False, False, False)
    assert client.sessions.settings(paired) == settings
    with pytest.raises(TypeError):
        client.sessions.update_settings(paired, **{"reject": True})  # type: ignore[arg-type]

    viewer_key = key_of_role("viewer")

    async def viewer_scenario() -> None:
        async with AsyncClient(base_url=ponte, api_key=viewer_key) as viewer:
            assert (await viewer.sessions.settings(paired)).reject_calls is True
            assert (await viewer.chats.list(paired)).total >= 1
            with pytest.raises(PermissionDeniedError):
                await viewer.groups.set_subject(paired, group["id"], "x")

    asyncio.run(viewer_scenario())


def test_status_posts_deletes_and_lists_are_typed(client, paired, ponte, admin_key) -> None:
    posted = client.status.post_text(paired, "Bom dia", background_color="#112233", font=4)
    assert isinstance(posted, Status) and (posted.type, posted.font, posted.from_me) == ("text", 4, True)
    image = client.status.post_media(paired, "image", base64="/9j/4AAQSkZJRg==", caption="Nova")
    assert image.media_url and image.background_color is None
    assert [s.id for s in client.status.list(paired).items] == [image.id, posted.id]
    row = SessionRow.objects.get(pk=paired)
    sandbox_inject(
        session=row, event="status", data={"from": f"{ANA}@s.whatsapp.net", "type": "text", "text": "oi"}
    )
    (seen,) = client.status.contacts(paired).items
    assert (seen.sender, seen.text, seen.from_me) == (f"{ANA}@s.whatsapp.net", "oi", False)
    client.status.delete(paired, posted.id)
    with pytest.raises(NotFoundError):
        client.status.delete(paired, posted.id)

    async def twin() -> None:
        async with AsyncClient(base_url=ponte, api_key=admin_key) as aio:
            assert (await aio.status.list(paired)).total == 1

    asyncio.run(twin())


def test_channels_are_typed(client, paired) -> None:
    created = client.channels.create(paired, "Ofertas", description="As melhores")
    assert isinstance(created, Channel) and created.role == "owner" and created.jid.endswith("@newsletter")
    assert client.channels.list(paired) == [created]
    sent = client.messages.send_text(paired, created.jid, "Abrimos às 9h")
    posts = client.channels.messages(paired, created.jid)
    assert [post["messageId"] for post in posts.items] == [sent.message_id]
    with pytest.raises(NotFoundError):
        client.channels.follow(paired, invite="NOPE")
    with pytest.raises(PermissionDeniedError):
        client.channels.unfollow(paired, created.jid)  # an owner cannot
