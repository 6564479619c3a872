"""Sending one operation, sync or async: the key in the interface's header, retries that honour
Retry-After, and error replies raised as typed exceptions."""

from __future__ import annotations

import asyncio
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


@dataclass(frozen=True)
class Op(Generic[T]):
    """One API call: what to send and how to read the reply."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    auth: Auth = "x-api-key"
    params: dict[str, Any] | None = None
    json: Any = None


@dataclass
class RetryPolicy:
    max_retries: int = 2
    backoff: float = 0.5  # seconds, doubled each retry when the server names no Retry-After
    max_wait: float = 60.0  # never sleep longer than this for one retry
    statuses: frozenset[int] = field(default=RETRIED_STATUSES)

    def wait(self, attempt: int, response: httpx.Response | None) -> float:
        server = retry_after_of(response) if response is not None else None
        return min(self.max_wait, server if server is not None else self.backoff * 2**attempt)

    def should_retry(self, op: Op[Any], attempt: int, response: httpx.Response | None) -> bool:
        if attempt >= self.max_retries:
            return False
        if response is None:  # a connection error: the request may not have arrived
            return op.method in IDEMPOTENT
        if response.status_code == 429:  # refused before anything was done: safe for any method
            return True
        return response.status_code in self.statuses and op.method in IDEMPOTENT


def headers_for(op: Op[Any], api_key: str | None) -> dict[str, str]:
    if not api_key or op.auth == "none":
        return {}
    if op.auth == "bearer":
        return {"Authorization": f"Bearer {api_key}"}
    return {"X-API-Key": api_key}


def _params(op: Op[Any]) -> dict[str, Any] | None:
    return {k: v for k, v in op.params.items() if v is not None} if op.params else None


def _finish(op: Op[T], response: httpx.Response) -> T:
    if response.status_code >= 400:
        raise error_from(response)
    return op.parse(response)


def send(http: httpx.Client, op: Op[T], *, api_key: str | None, retry: RetryPolicy) -> T:
    attempt = 0
    while True:
        try:
            response: httpx.Response | None = http.request(
                op.method, op.path, params=_params(op), json=op.json, headers=headers_for(op, api_key)
            )
        except httpx.TransportError:
            if not retry.should_retry(op, attempt, None):
                raise
            response = None
        if response is not None and response.status_code < 400:
            return op.parse(response)
        if not retry.should_retry(op, attempt, response):
            assert response is not None
            return _finish(op, response)
        time.sleep(retry.wait(attempt, response))
        attempt += 1


async def send_async(http: httpx.AsyncClient, op: Op[T], *, api_key: str | None, retry: RetryPolicy) -> T:
    attempt = 0
    while True:
        try:
            response: httpx.Response | None = await http.request(
                op.method, op.path, params=_params(op), json=op.json, headers=headers_for(op, api_key)
            )
        except httpx.TransportError:
            if not retry.should_retry(op, attempt, None):
                raise
            response = None
        if response is not None and response.status_code < 400:
            return op.parse(response)
        if not retry.should_retry(op, attempt, response):
            assert response is not None
            return _finish(op, response)
        await asyncio.sleep(retry.wait(attempt, response))
        attempt += 1


__all__ = ["Op", "PonteError", "RateLimitError", "RetryPolicy", "send", "send_async"]
