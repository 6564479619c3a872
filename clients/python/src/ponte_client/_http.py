"""Sending one operation, sync or async: the key in the interface's header, retries that honour
Retry-After, rate-limit refusals waited out when asked, and error replies raised as typed exceptions."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

import httpx

from ponte_client.errors import PonteError, RateLimitError, error_from, retry_after_of

T = TypeVar("T")
Auth = Literal["x-api-key", "bearer", "none"]
RETRIED_STATUSES = frozenset({429, 502, 503, 504})
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
# The bond list refuses a keyed call within BONDS_KEY_INTERVAL_SECONDS (5 by default) of the last one with
# HTTP 200 and `rate_limited`; its description names the wait ("Wait 5 seconds and call again").
BONDS_RATE_LIMITED = "rate_limited"
BONDS_STATUS_HEADER = "X-Ponte-Status"
BONDS_DEFAULT_WAIT = 5.0
_NAMED_WAIT = re.compile(r"Wait (\d+(?:\.\d+)?) seconds")
# Clocks of client and cache differ by a few milliseconds: waking exactly at the end of the interval
# could still land inside it.
_WAIT_MARGIN = 0.1


@dataclass(frozen=True)
class Op(Generic[T]):
    """One API call: what to send and how to read the reply."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    auth: Auth = "x-api-key"
    params: dict[str, Any] | None = None
    json: Any = None
    #: `Idempotency-Key` of a message send: the server replays the first reply to a repeat, so the
    #: call may be retried after a lost connection or a 5xx like a GET.
    idempotency_key: str | None = None

    @property
    def retry_safe(self) -> bool:
        return self.method in IDEMPOTENT or self.idempotency_key is not None


@dataclass
class RetryPolicy:
    max_retries: int = 2
    backoff: float = 0.5  # seconds, doubled each retry when the server names no Retry-After
    max_wait: float = 60.0  # never sleep longer than this for one retry
    statuses: frozenset[int] = field(default=RETRIED_STATUSES)
    # Wait out rate-limit refusals (a 429's Retry-After, the bond list's `rate_limited`) and call again,
    # up to max_rate_limit_waits times per call, however long the server asks (max_wait does not apply).
    wait_on_rate_limit: bool = False
    max_rate_limit_waits: int = 5

    def wait(self, attempt: int, response: httpx.Response | None) -> float:
        server = retry_after_of(response) if response is not None else None
        return min(self.max_wait, server if server is not None else self.backoff * 2**attempt)

    def should_retry(self, op: Op[Any], attempt: int, response: httpx.Response | None) -> bool:
        if attempt >= self.max_retries:
            return False
        if response is None:  # a connection error: the request may not have arrived
            return op.retry_safe
        if response.status_code == 429:  # refused before anything was done: safe for any method
            return True
        if response.status_code == 409 and op.idempotency_key is not None:
            # IDEMPOTENCY_KEY_IN_FLIGHT: the first attempt is still running; its reply will be replayed.
            return "IDEMPOTENCY_KEY_IN_FLIGHT" in response.text
        return response.status_code in self.statuses and op.retry_safe


def bonds_rate_limit_wait(response: httpx.Response) -> float | None:
    """The seconds a bond list `rate_limited` reply asks to wait; None for any other reply."""
    if response.status_code != 200 or "/bonds/" not in response.url.path:  # only the bond list's replies
        return None
    if response.headers.get(BONDS_STATUS_HEADER) == BONDS_RATE_LIMITED:  # format=csv
        return retry_after_of(response) or BONDS_DEFAULT_WAIT
    try:
        body = response.json()
        status, description = body["response"]["status"], str(body["response"].get("description", ""))
    except (ValueError, KeyError, TypeError):
        return None
    if status != BONDS_RATE_LIMITED:
        return None
    named = _NAMED_WAIT.search(description)
    return retry_after_of(response) or (float(named.group(1)) if named else BONDS_DEFAULT_WAIT)


def rate_limit_pause(retry: RetryPolicy, response: httpx.Response | None, waits: int) -> float | None:
    """How long to wait before calling again when the policy waits out rate limits and `response` is a
    rate-limit refusal; None otherwise (the reply is then handled as usual)."""
    if response is None or not retry.wait_on_rate_limit or waits >= retry.max_rate_limit_waits:
        return None
    if response.status_code == 429:
        server = retry_after_of(response)
        return (server if server is not None else retry.backoff * 2**waits) + _WAIT_MARGIN
    wait = bonds_rate_limit_wait(response)
    return None if wait is None else wait + _WAIT_MARGIN


def headers_for(op: Op[Any], api_key: str | None) -> dict[str, str]:
    extra = {"Idempotency-Key": op.idempotency_key} if op.idempotency_key else {}
    if not api_key or op.auth == "none":
        return extra
    if op.auth == "bearer":
        return {"Authorization": f"Bearer {api_key}", **extra}
    return {"X-API-Key": api_key, **extra}


def _params(op: Op[Any]) -> dict[str, Any] | None:
    return {k: v for k, v in op.params.items() if v is not None} if op.params else None


def _finish(op: Op[T], response: httpx.Response) -> T:
    if response.status_code >= 400:
        raise error_from(response)
    return op.parse(response)


def send(http: httpx.Client, op: Op[T], *, api_key: str | None, retry: RetryPolicy) -> T:
    attempt = waits = 0
    while True:
        try:
            response: httpx.Response | None = http.request(
                op.method, op.path, params=_params(op), json=op.json, headers=headers_for(op, api_key)
            )
        except httpx.TransportError:
            if not retry.should_retry(op, attempt, None):
                raise
            response = None
        pause = rate_limit_pause(retry, response, waits)
        if pause is not None:
            time.sleep(pause)
            waits += 1
            continue
        if response is not None and response.status_code < 400:
            return op.parse(response)
        if not retry.should_retry(op, attempt, response):
            assert response is not None
            return _finish(op, response)
        time.sleep(retry.wait(attempt, response))
        attempt += 1


async def send_async(http: httpx.AsyncClient, op: Op[T], *, api_key: str | None, retry: RetryPolicy) -> T:
    attempt = waits = 0
    while True:
        try:
            response: httpx.Response | None = await http.request(
                op.method, op.path, params=_params(op), json=op.json, headers=headers_for(op, api_key)
            )
        except httpx.TransportError:
            if not retry.should_retry(op, attempt, None):
                raise
            response = None
        pause = rate_limit_pause(retry, response, waits)
        if pause is not None:
            await asyncio.sleep(pause)
            waits += 1
            continue
        if response is not None and response.status_code < 400:
            return op.parse(response)
        if not retry.should_retry(op, attempt, response):
            assert response is not None
            return _finish(op, response)
        await asyncio.sleep(retry.wait(attempt, response))
        attempt += 1


__all__ = ["Op", "PonteError", "RateLimitError", "RetryPolicy", "send", "send_async"]
