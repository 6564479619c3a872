"""ponte_client's linked ids against a live Ponte on the sandbox: the pair typed, LID_NOT_FOUND as
NotFoundError, a person's one chat found by either id, the async twin."""

from __future__ import annotations

import asyncio

import pytest
from ponte_client import AsyncClient, LidPair, NotFoundError

from messaging.models import Session as SessionRow
from messaging.services.sessions import sandbox_inject, sandbox_scan

LID = "190000111222333@lid"
PN = "5511911110001@s.whatsapp.net"


@pytest.fixture
def paired(client):
    session = client.sessions.create("lids")
    client.sessions.connect(session.id)
    sandbox_scan(session=SessionRow.objects.get(pk=session.id), phone="5511999990001")
    return session.id


def test_the_pair_of_a_linked_id_and_its_one_chat_are_typed(client, paired, ponte, admin_key) -> None:
    row = SessionRow.objects.get(pk=paired)
    sandbox_inject(session=row, event="message", data={"from": LID, "senderPn": PN, "text": "oi"})
    assert client.contacts.lid(paired, LID) == LidPair(LID, PN)
    assert client.contacts.lid(paired, "5511911110001") == LidPair(LID, PN)
    with pytest.raises(NotFoundError) as raised:
        client.contacts.lid(paired, "80000999888777@lid")
    assert raised.value.error == "LID_NOT_FOUND"
    (chat,) = client.chats.list(paired, chat=PN).items
    assert (chat.id, chat.lid, chat.pn) == (LID, LID, PN)

    async def twin() -> LidPair:
        async with AsyncClient(base_url=ponte, api_key=admin_key) as aio:
            return await aio.contacts.lid(paired, PN)

    assert asyncio.run(twin()) == LidPair(LID, PN)


def test_a_text_and_a_poll_mention_people_and_mention_all_outside_a_group_is_a_bad_request(
    client, paired
) -> None:
    from ponte_client import BadRequestError

    from messaging.models import Message

    sent = client.messages.send_text(paired, "5511911110001", "@bia", mentions=["5511911110002"])
    row = Message.objects.get(message_id=sent.message_id)
    assert row.content["mentions"] == ["5511911110002@s.whatsapp.net"]
    group = client.groups.create(paired, "Equipe", ["5511911110001", "5511911110002"])
    poll = client.messages.send_poll(paired, group["id"], "Almoço?", ["Sim", "Não"], mention_all=True)
    mentioned = Message.objects.get(message_id=poll.message_id).content["mentions"]
    assert mentioned == ["5511911110001@s.whatsapp.net", "5511911110002@s.whatsapp.net"]
    with pytest.raises(BadRequestError):
        client.messages.send_text(paired, "5511911110001", "@todos", mention_all=True)
