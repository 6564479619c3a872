"""The Python client's list messages, forwards and link previews against a live Ponte on the sandbox."""

from __future__ import annotations

import asyncio

import pytest
from ponte_client import AsyncClient, Client, LinkPreview, ListRow, ListSection
from ponte_client.errors import PonteError

from messaging.models import Message
from messaging.models import Session as SessionRow
from messaging.services.sessions import sandbox_scan

CUSTOMER = "5511988880002"
JID = f"{CUSTOMER}@s.whatsapp.net"


def _paired(client: Client) -> str:
    session = client.sessions.create("lists")
    client.sessions.connect(session.id)
    sandbox_scan(session=SessionRow.objects.get(pk=session.id), phone="5511999990001")
    return session.id


def test_send_list_forward_and_a_given_preview_are_typed(client) -> None:
    session_id = _paired(client)
    sections = [ListSection("Bebidas", [ListRow("b1", "Suco", "Laranja"), ListRow("b2", "Água")])]
    sent = client.messages.send_list(session_id, CUSTOMER, "Escolha", "Ver", sections, title="Menu")
    assert sent.to == JID
    listed = Message.objects.get(message_id=sent.message_id).content["list"]
    assert listed["title"] == "Menu" and listed["sections"][0]["rows"][0]["description"] == "Laranja"
    preview = LinkPreview("https://a.example/x", "A", "desc", thumbnail=b"\xff\xd8")
    text = client.messages.send_text_with_preview(session_id, CUSTOMER, "see https://a.example/x", preview)
    assert Message.objects.get(message_id=text.message_id).content["linkPreview"]["title"] == "A"
    copy = client.messages.forward(session_id, "5511977770003", CUSTOMER, text.message_id)
    assert Message.objects.get(message_id=copy.message_id).content["forwarded"] is True
    with pytest.raises(PonteError) as missing:
        client.messages.forward(session_id, "5511977770003", CUSTOMER, "3EB0NOPE")
    assert missing.value.statusCode == 404


def test_the_async_client_sends_a_list(ponte, admin_key) -> None:
    with Client(base_url=ponte, api_key=admin_key) as sync:
        session_id = _paired(sync)

    async def run() -> str:
        async with AsyncClient(base_url=ponte, api_key=admin_key) as client:
            sections = [ListSection("S", [ListRow("r", "R")])]
            return (await client.messages.send_list(session_id, CUSTOMER, "t", "b", sections)).message_id

    assert Message.objects.get(message_id=asyncio.run(run())).type == "list"
