"""`wait_on_rate_limit=True` waits out the bond list's interval rule (against a live Ponte) and a 429's
Retry-After (a real local HTTP server), sync and async; `sessions.sandbox_scan()` pairs a sandbox session
so that it can send."""

from __future__ import annotations

import asyncio
import json
import time
from http.server import BaseHTTPRequestHandler
from itertools import pairwise

import pytest
from ponte_client import (
    AsyncClient,
    BadRequestError,
    BondsAccessError,
    Client,
    ConflictError,
    RateLimitError,
    RetryPolicy,
)

from tests.localhttp import base_url, serving

INTERVAL = 1  # seconds between keyed bond calls in these tests (5 in production)


@pytest.fixture
def interval(ponte, settings) -> str:
    settings.BONDS_KEY_INTERVAL_SECONDS = INTERVAL
    return ponte


def test_a_second_bond_call_within_the_interval_raises_rate_limited_by_default(interval, admin_key) -> None:
    with Client(base_url=interval, api_key=admin_key) as client:
        assert client.bonds.list().status == "ok"
        with pytest.raises(BondsAccessError) as caught:
            client.bonds.list()
    assert caught.value.error == "rate_limited"


def test_wait_on_rate_limit_waits_out_the_bond_interval_and_calls_again(interval, admin_key) -> None:
    with Client(base_url=interval, api_key=admin_key, wait_on_rate_limit=True) as client:
        assert client.bonds.list().status == "ok"
        started = time.monotonic()
        assert client.bonds.list(product=["cdb"]).status == "ok"
        assert "," in client.bonds.csv(locale="pt-BR")  # the CSV's X-Ponte-Status is waited out too
    assert time.monotonic() - started >= 2 * INTERVAL


def test_the_async_client_waits_out_the_bond_interval_when_asked(interval, admin_key) -> None:
    async def two_calls() -> list[str]:
        async with AsyncClient(base_url=interval, api_key=admin_key, wait_on_rate_limit=True) as client:
            return [(await client.bonds.list()).status, (await client.bonds.list()).status]

    started = time.monotonic()
    assert asyncio.run(two_calls()) == ["ok", "ok"]
    assert time.monotonic() - started >= INTERVAL


def test_a_key_without_subscription_is_not_waited_on(ponte, make_account, make_key) -> None:
    plaintext = make_key(for_account=make_account(bonds_subscription=None))
    with (
        Client(base_url=ponte, api_key=plaintext, wait_on_rate_limit=True) as client,
        pytest.raises(BondsAccessError) as caught,
    ):
        client.bonds.list()
    assert caught.value.error == "no_subscription"


def _too_many_then_ok(refusals: int):
    """A handler answering 429 (Retry-After: 1) `refusals` times, then 200; it records arrival times."""
    arrivals: list[float] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            arrivals.append(time.monotonic())
            refused = len(arrivals) <= refusals
            body = json.dumps(
                {"statusCode": 429, "error": "TOO_MANY_REQUESTS", "message": "Slow down.", "retryAfter": 1}
                if refused
                else {"data": [], "meta": {"total": 0, "page": 1, "limit": 20, "totalPages": 0}}
            ).encode()
            self.send_response(429 if refused else 200)
            if refused:
                self.send_header("Retry-After", "1")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    return Handler, arrivals


def test_wait_on_rate_limit_waits_out_429s_beyond_max_retries() -> None:
    handler, arrivals = _too_many_then_ok(3)
    no_retries = RetryPolicy(max_retries=0, max_wait=0.1)  # waiting on rate limits ignores both
    with (
        serving(handler) as server,
        Client(base_url=base_url(server), api_key="k", retry=no_retries, wait_on_rate_limit=True) as client,
    ):
        assert client.sessions.list().total == 0
    assert len(arrivals) == 4
    assert all(later - earlier >= 0.95 for earlier, later in pairwise(arrivals))


def test_the_async_client_waits_out_429s_and_gives_up_after_its_waits() -> None:
    handler, arrivals = _too_many_then_ok(10)
    policy = RetryPolicy(max_retries=0, wait_on_rate_limit=True, max_rate_limit_waits=2)

    async def call(url: str) -> None:
        async with AsyncClient(base_url=url, api_key="k", retry=policy) as client:
            await client.sessions.list()

    with serving(handler) as server, pytest.raises(RateLimitError) as caught:
        asyncio.run(call(base_url(server)))
    assert len(arrivals) == 3 and caught.value.retry_after == 1


def test_sandbox_scan_pairs_a_session_so_that_it_can_send(client) -> None:
    session = client.sessions.create("shop")
    client.sessions.connect(session.id)
    with pytest.raises(ConflictError):
        client.messages.send_text(session.id, "5511988880002", "Olá!")  # nobody scanned yet
    paired = client.sessions.sandbox_scan(session.id, phone="5511999990001")
    assert paired.status == "connected" and paired.phone == "5511999990001"
    assert client.messages.send_text(session.id, "5511988880002", "Olá!").message_id


def test_the_async_sandbox_scan_refuses_a_session_not_waiting_for_a_scan(ponte, admin_key) -> None:
    async def scan_twice() -> str:
        async with AsyncClient(base_url=ponte, api_key=admin_key) as client:
            session = await client.sessions.create("shop")
            await client.sessions.connect(session.id)
            status = (await client.sessions.sandbox_scan(session.id)).status
            with pytest.raises(BadRequestError) as caught:
                await client.sessions.sandbox_scan(session.id)
            assert caught.value.error == "SESSION_NOT_IN_QR_STATE"
            return status

    assert asyncio.run(scan_twice()) == "connected"
