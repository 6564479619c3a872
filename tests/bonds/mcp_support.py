"""The MCP tests' live server and data: a live uvicorn serving `config.asgi.application` (the router) on
127.0.0.1, backed by the test database (`transactional_db`, so the server's threads see what the test
wrote), the MCP SDK's own client (Streamable HTTP), and real offers written through the refresh's services."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from datetime import date, timedelta

import httpx2
import pytest
import uvicorn
from django.utils import timezone
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from accounts.models import ApiKey
from bonds import finance
from bonds.figures import bond_returns_recompute
from bonds.models import Bond, ProjectionSnapshot
from bonds.offers import bond_offers_upsert
from bonds.providers.base import Offer

MCP = "/bonds/mcp"


# --- The live server ----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(app, *, lifespan: str = "on") -> Iterator[str]:
    """uvicorn serving `app` in a thread of this process on a free 127.0.0.1 port: same settings, same
    cache, and the test database (its name is set by django_db_setup)."""
    config = uvicorn.Config(
        app, host="127.0.0.1", port=_free_port(), lifespan=lifespan, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-mcp", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped while starting"
        assert time.monotonic() < deadline, "uvicorn did not start within 30 s"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def live_server_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    """`config.asgi.application`, the router `make run` serves, once for the module."""
    from config.asgi import application

    with serving(application) as url:
        yield url


@pytest.fixture
def mcp_url(live_server_url: str) -> str:
    return live_server_url + MCP


def mcp_headers(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


async def call_async(url: str, tool: str, arguments: dict, key: str | None):
    async with (
        httpx2.AsyncClient(headers=mcp_headers(key), timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        return await client.call_tool(tool, arguments)


def call(url: str, tool: str, arguments: dict | None = None, key: str | None = None):
    return asyncio.run(call_async(url, tool, arguments or {}, key))


def structured(url: str, tool: str, arguments: dict | None = None, key: str | None = None) -> dict:
    result = call(url, tool, arguments, key)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


# --- Data: real offers through the refresh's own services ---------------------------------------------


def offer(key: str, days: int, **values) -> Offer:
    defaults = {
        "natural_key": key,
        "name": f"Bond {key}",
        "bank": 77,
        "bank_name": "Banco Inter",
        "product": "cdb",
        "index": "pre",
        "rate": 0.12,
        "maturity_date": timezone.localdate() + timedelta(days=days),
        "fgc_protection": True,
        "min_investment": 1000.0,
        "rating": "brAA",
        "rating_given": True,
    }
    return Offer(**{**defaults, **values})


@pytest.fixture
def bonds(transactional_db) -> dict[str, Bond]:
    """Eight offers of every kind; returns computed by the refresh's recompute from a flat projection
    (Selic target 15%, CDI 14.9%, IPCA 4.5%)."""
    offers = [
        offer("A", 730, product="cdb", index="pre", rate=0.13),
        offer("B", 740, product="lca", index="pre", rate=0.11, tax_free=True, min_investment=5000.0),
        offer("C", 735, product="cdb", index="cdi*", rate=1.10, min_investment=500.0),
        offer("D", 1100, product="lci", index="ipca+", rate=0.06, tax_free=True),
        offer(
            "E", 1825, product="deb", index="cdi+", rate=0.02, fgc_protection=False, min_investment=50_000.0
        ),
        offer(
            "F",
            1460,
            product="td",
            index="selic+",
            rate=0.0005,
            fgc_protection=False,
            bank=0,
            bank_name="Tesouro Nacional",
            min_investment=100.0,
            early_withdrawal=True,
        ),
        offer("G", 365, product="cra", index="ipca*", rate=1.1, fgc_protection=False, tax_free=True),
        offer("H", 2190, product="lf", index="cdi*", rate=1.0, fgc_protection=False, exclusive=True),
    ]
    bond_offers_upsert(source="test", offers=offers)
    ProjectionSnapshot.objects.create(
        date=timezone.localdate(), selic_current=15.0, cdi_current=14.9, ipca_12m=4.5
    )
    bond_returns_recompute()
    return {bond.natural_key: bond for bond in Bond.objects.all()}


def ok_key(make_key) -> str:
    return make_key(ApiKey.Role.VIEWER)


def expected_net(amount: float, rate: float, maturity: date, *, tax: float) -> float:
    """A fixed-rate bond: F = (1 + r)^(du/252), net = amount * (1 + (F - 1)(1 - tax)), with du from the
    settlement date of an order placed today to the payment day (the next business day when the
    maturity is not one)."""
    paid = finance.next_business_day(maturity)
    factor = (1 + rate) ** (finance.business_days(finance.settlement_date(timezone.localdate()), paid) / 252)
    return amount * (1 + (factor - 1) * (1 - tax))
