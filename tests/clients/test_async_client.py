"""ponte_client.AsyncClient against a live Ponte, and the same surface as the sync client."""

from __future__ import annotations

import asyncio
import inspect

import pytest
from ponte_client import AsyncClient, AuthenticationError, Client, aio
from ponte_client import client as sync


def test_async_client_lists_bonds_and_manages_sessions_and_webhooks(ponte, admin_key, settings) -> None:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["127.0.0.0/8"]

    async def scenario() -> None:
        async with AsyncClient(base_url=ponte, api_key=admin_key) as client:
            bonds, session = await asyncio.gather(
                client.bonds.list(product=["cdb"]), client.sessions.create("a")
            )
            assert bonds.status == "ok" and bonds.bonds
            connection = await client.sessions.connect(session.id)
            assert (await client.sessions.qrcode(session.id)).qr_code == connection.qr_code
            hook = await client.webhooks.create(session.id, "http://127.0.0.1:9/h", ["qr"])
            assert [w.id for w in await client.webhooks.list()] == [hook.id]
            await client.webhooks.delete(hook.id)
            await client.sessions.delete(session.id)
            assert (await client.sessions.list()).total == 0
        async with AsyncClient(base_url=ponte, api_key="ponte_xxxxxxxx_wrong") as client:
            with pytest.raises(AuthenticationError) as caught:
                await client.sessions.list()
            assert caught.value.statusCode == 401

    asyncio.run(scenario())


def _methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in vars(cls).items()
        if callable(member) and not name.startswith("_")
    }


@pytest.mark.parametrize(
    "name", ["Bonds", "Sessions", "Messages", "Contacts", "Groups", "Webhooks", "Instance"]
)
def test_every_sync_method_has_an_async_twin_with_the_same_signature(name) -> None:
    sync_methods, async_methods = _methods(getattr(sync, name)), _methods(getattr(aio, name))
    assert sync_methods == async_methods
    for method in vars(getattr(aio, name)).values():
        if callable(method) and not method.__name__.startswith("_"):
            assert inspect.iscoroutinefunction(method), method
    assert {k for k in vars(Client(base_url="http://x")) if not k.startswith("_")} == {
        k for k in vars(AsyncClient(base_url="http://x")) if not k.startswith("_")
    }
