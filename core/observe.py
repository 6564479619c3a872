"""What the web process notes about each HTTP request, around the whole ASGI app (Django and MCP alike):
its request id (returned as `X-Request-Id`), its metrics, and one log line.

The request id is a sane `X-Request-Id` from a trusted proxy (PONTE_TRUSTED_PROXIES) or a new one; the
header the app sees is replaced by it, so nothing downstream reads a client's own choice. The id is set in
a context variable for the request's whole run (the WSGI bridge runs Django in a copy of this context).

The log line names the method, a path with any secret part hidden (instance keys, account-link tokens;
never the query string, which may carry `?key=`), the status and the time taken.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.conf import settings

from core import metrics
from core.logfilters import redacted
from core.logs import new_request_id, request_id_var, sane_request_id

logger = logging.getLogger("ponte.request")

Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]

_HEADER = b"x-request-id"


@lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def from_trusted_proxy(address: str) -> bool:
    proxies = tuple(settings.PONTE_TRUSTED_PROXIES)
    if not proxies or not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in _networks(proxies))


def request_id_for(scope: Scope) -> str:
    """The id of this request: the proxy's, when a trusted proxy sent a sane one; otherwise a new one."""
    client = scope.get("client") or ("", 0)
    for name, value in scope["headers"]:
        if name == _HEADER:
            if from_trusted_proxy(client[0]):
                given = sane_request_id(value.decode("latin-1"))
                if given:
                    return given
            break
    return new_request_id()


def loggable_path(path: str) -> str:
    """The path with its credential parts hidden (instance keys, tokens: core.logfilters), cut short."""
    return redacted(path)[:200]


class Observed:
    """The ASGI app `app` with request ids, request metrics and a log line per HTTP request."""

    def __init__(self, app: Callable) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = request_id_for(scope)
        raw_id = request_id.encode("latin-1")
        headers = [(name, value) for name, value in scope["headers"] if name != _HEADER]
        headers.append((_HEADER, raw_id))
        scope = {**scope, "headers": headers}
        status = 0

        async def send_noting_status(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", ()), (_HEADER, raw_id)]}
            await send(message)

        token = request_id_var.set(request_id)
        try:
            await self.app(scope, receive, send_noting_status)
        finally:
            request_id_var.reset(token)
            self._observed(scope, status or 500, time.perf_counter() - started, request_id)

    @staticmethod
    def _observed(scope: Scope, status: int, seconds: float, request_id: str) -> None:
        path, method = scope["path"], scope["method"]
        interface = metrics.request_observed(path=path, method=method, status=status, seconds=seconds)
        if logger.isEnabledFor(logging.INFO):
            shown = loggable_path(path)
            milliseconds = round(seconds * 1000, 1)
            logger.info(
                "%s %s %s %.1fms",
                method,
                shown,
                status,
                milliseconds,
                extra={
                    "request_id": request_id,
                    "fields": {
                        "event": "request",
                        "method": method,
                        "path": shown,
                        "interface": interface,
                        "status": status,
                        "duration_ms": milliseconds,
                    },
                },
            )
