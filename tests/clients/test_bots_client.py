"""ponte_client's bots against a live Ponte (sync and async): create, list, change with the secret kept,
a chat paused and resumed, refusals as typed errors, delete."""

from __future__ import annotations

import asyncio

import pytest
from ponte_client import AsyncClient, BotRules, NotFoundError, PermissionDeniedError

from messaging.models import Session

LOCAL_MODEL = {"baseUrl": "http://127.0.0.1:9/v1", "model": "llama3.1"}  # a closed port: never called


@pytest.fixture
def session(account, settings) -> Session:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]
    return Session.objects.create(account=account, name="bots", status=Session.Status.CONNECTED)


def test_bots_through_the_client(client, session, ponte, viewer_key) -> None:
    rules = BotRules(trigger="keyword", operator="equals", value="menu", pause_minutes=30)
    bot = client.bots.create(str(session.pk), "menu", "openai", LOCAL_MODEL, secret="sk-local", rules=rules)
    assert bot.secret_set and bot.rules.pause_minutes == 30 and bot.settings["contextMessages"] == 10
    assert [each.id for each in client.bots.list(str(session.pk))] == [bot.id]
    changed = client.bots.update(bot, name="menu 2", enabled=False)
    assert changed.name == "menu 2" and changed.enabled is False and changed.secret_set
    assert changed.rules == rules
    assert client.bots.pause(bot.id, "5511988887777", 15) is True
    (conversation,) = client.bots.conversations(bot.id)
    assert conversation.chat_id == "5511988887777@s.whatsapp.net" and conversation.status == "paused"
    assert client.bots.resume(bot.id, "5511988887777") is True
    from ponte_client import Client

    with Client(base_url=ponte, api_key=viewer_key) as viewer, pytest.raises(PermissionDeniedError):
        viewer.bots.delete(bot.id)
    assert client.bots.delete(bot.id) is True
    with pytest.raises(NotFoundError):
        client.bots.get(bot.id)


def test_the_async_client_reads_and_writes_bots(session, ponte, admin_key) -> None:
    async def run() -> list[str]:
        async with AsyncClient(base_url=ponte, api_key=admin_key) as client:
            bot = await client.bots.create(str(session.pk), "async", "openai", LOCAL_MODEL)
            names = [each.name for each in await client.bots.list()]
            await client.bots.delete(bot.id)
            return names

    assert asyncio.run(run()) == ["async"]
