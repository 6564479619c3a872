"""SSRF-safe HTTP for everything Ponte fetches or posts on a customer's say-so.

Webhook deliveries and the profile-picture fetch go to URLs that callers choose, so a URL could aim at
Ponte's own network: loopback, private ranges, the cloud metadata address. Checking the URL once at
registration is not enough (DNS can change before the POST), so the check also sits where the socket is
opened: the connection resolves the host, refuses it if any address is refused (net.addresses), and
connects only to the vetted addresses, trying each in resolver order until one answers, while keeping
the host name for the Host header, TLS SNI and the certificate check. Redirects are never followed.

What callers see is generic ("refused", "could not fetch"): the resolved addresses and the socket's
own error text stay in the logs, so the API cannot be used to map Ponte's network or its DNS.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3 import BaseHTTPResponse, PoolManager, Timeout
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, HTTPError, NewConnectionError, ReadTimeoutError

from core.errors import ValidationFailed
from net.addresses import RefusedAddress, resolve_vetted
from net.guard import outside_call_check

RESPONSE_EXCERPT_BYTES = 2048
logger = logging.getLogger(__name__)


class UnsafeTarget(ValidationFailed):
    """The URL is not acceptable: bad scheme or host, or it resolves to a refused address."""

    default_message = "The URL must be http(s) and resolve only to public internet addresses."


class TransportError(Exception):
    """A fetch failed: network error, timeout, bad status, too large or wrong type. The message is
    safe to show the caller."""


REFUSED_MESSAGE = "url refused: its host must resolve only to public internet addresses"
CONNECT_REFUSED_MESSAGE = (
    "url refused at connection time: its host no longer resolves only to public internet addresses"
)


def validate_target_url(url: str) -> None:
    """Check a URL at registration time: http(s), a host, and only public addresses behind it."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise UnsafeTarget(f"url refused: it is not a valid URL ({exc})") from None
    if parts.scheme not in {"http", "https"}:
        raise UnsafeTarget("url refused: it must start with http:// or https://")
    if not parts.hostname:
        raise UnsafeTarget("url refused: it has no host")
    if parts.username or parts.password:
        raise UnsafeTarget("url refused: it must not carry a user name or password; use the webhook secret")
    try:
        resolve_vetted(parts.hostname, port)
    except RefusedAddress as exc:
        logger.warning("Refused target URL %r: %s", url, exc)
        raise UnsafeTarget(REFUSED_MESSAGE) from None


# --- The vetting connection classes ---------------------------------------------------------------


class _VettedConnectionMixin:
    _dns_host: str
    port: int
    timeout: float | None

    def _new_conn(self) -> socket.socket:
        """Connect to each vetted address in turn, within the one connect timeout; the last failure
        is raised when none answers (an IPv6 address first on a host without IPv6 is the usual case)."""
        host, timeout = self._dns_host, self.timeout
        deadline = time.monotonic() + timeout if isinstance(timeout, int | float) else None
        failure: Exception | None = None
        try:
            for address in resolve_vetted(host, self.port):
                if deadline is not None:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self.timeout = remaining
                self._dns_host = address  # connect to this vetted address; self.host keeps the name
                try:
                    return super()._new_conn()  # type: ignore[misc]
                except (NewConnectionError, ConnectTimeoutError) as exc:
                    failure = exc
        finally:
            self._dns_host, self.timeout = host, timeout
        raise failure or ConnectTimeoutError(self, f"Connection to {host} timed out")


class VettedHTTPConnection(_VettedConnectionMixin, HTTPConnection):
    pass


class VettedHTTPSConnection(_VettedConnectionMixin, HTTPSConnection):
    pass


class _GuardedPoolMixin:
    """Every request through net's pools (safe_post, safe_get, http_session) first checks that no
    database transaction is open (net.guard)."""

    scheme: str
    host: str
    port: int | None

    def urlopen(self, method: str, url: str, *args, **kwargs) -> BaseHTTPResponse:
        outside_call_check("%s %s://%s:%s%s", method, self.scheme, self.host, self.port, url)
        return super().urlopen(method, url, *args, **kwargs)  # type: ignore[misc]


class _VettedHTTPPool(_GuardedPoolMixin, HTTPConnectionPool):
    ConnectionCls = VettedHTTPConnection


class _VettedHTTPSPool(_GuardedPoolMixin, HTTPSConnectionPool):
    ConnectionCls = VettedHTTPSConnection


VETTED_POOLS = {"http": _VettedHTTPPool, "https": _VettedHTTPSPool}


class VettedAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = VETTED_POOLS


def _post_pools() -> PoolManager:
    """Keep-alive pools of vetted connections, one per target (host, port), for safe_post; shared by
    the threads of a process (urllib3's pools are thread-safe). The same limits and CA bundle as
    http_session's adapter; no environment proxies."""
    manager = PoolManager(num_pools=64, maxsize=16, block=False, ca_certs=requests.certs.where())
    manager.pool_classes_by_scheme = VETTED_POOLS
    return manager


_pools = _post_pools()


_local = threading.local()


def http_session() -> requests.Session:
    """A pooled session per thread (requests.Session is not thread-safe), vetting every connection."""
    session = getattr(_local, "session", None)
    if session is None:
        session = requests.Session()
        session.trust_env = False  # never route customer URLs through environment proxies
        adapter = VettedAdapter(pool_connections=64, pool_maxsize=16, max_retries=0)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        _local.session = session
    return session


def _refusal_in(exc: BaseException) -> RefusedAddress | None:
    """Find the RefusedAddress that urllib3 and requests wrapped."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, RefusedAddress):
            return current
        stack.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        stack.extend(arg for arg in getattr(current, "args", ()) if isinstance(arg, BaseException))
        reason = getattr(current, "reason", None)
        if isinstance(reason, BaseException):
            stack.append(reason)
    return None


def refused_address_in(exc: BaseException) -> RefusedAddress | None:
    """The address refusal behind an error of requests or urllib3, if that is what it was."""
    return _refusal_in(exc)


@dataclass(frozen=True)
class PostResult:
    status: int | None
    body_excerpt: str
    duration_ms: int
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None and self.status is not None and self.status < 400


def safe_post(url: str, *, body: bytes, headers: dict[str, str], timeout: float) -> PostResult:
    """POST `body` to `url` within `timeout` seconds in all (connect, send, answer and read).

    Never raises for network trouble: the result carries the error. Raises UnsafeTarget when the
    address is refused at connection time, which callers record as a failed attempt.

    Straight on urllib3's pools rather than through a requests.Session: a webhook worker POSTs for
    every event, and requests' own layer (preparing, merging settings, choosing the adapter) costs
    more CPU than the POST itself (docs/decisions/0004).
    """
    started = time.monotonic()
    deadline = started + timeout

    def elapsed_ms() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        response = _pools.urlopen(
            "POST",
            url,
            body=body,
            headers=headers,
            timeout=Timeout(connect=timeout, read=timeout),
            retries=False,
            redirect=False,
            preload_content=False,
        )
    except (HTTPError, OSError) as exc:
        refusal = _refusal_in(exc)
        if refusal is not None:
            logger.warning("Refused %s at connection time: %s", url, refusal)
            raise UnsafeTarget(CONNECT_REFUSED_MESSAGE) from None
        timed_out = isinstance(exc, ConnectTimeoutError | ReadTimeoutError | TimeoutError)
        kind = "timeout" if timed_out and not isinstance(exc, NewConnectionError) else "connection error"
        return PostResult(None, "", elapsed_ms(), f"{kind}: {exc}"[:500])
    try:
        excerpt = _read_excerpt(response, deadline)
    except (HTTPError, OSError) as exc:
        return PostResult(response.status, "", elapsed_ms(), f"timeout while reading the answer: {exc}")
    finally:
        _release(response)
    if time.monotonic() > deadline:
        return PostResult(response.status, excerpt, elapsed_ms(), f"no complete answer within {timeout:g} s")
    return PostResult(response.status, excerpt, elapsed_ms(), None)


def _read_excerpt(response: BaseHTTPResponse, deadline: float) -> str:
    """Read the first ~2 KB of the answer (all we store); the rest is discarded unread."""
    chunks: list[bytes] = []
    size = 0
    while size < RESPONSE_EXCERPT_BYTES:
        chunk = response.read(1024)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size < RESPONSE_EXCERPT_BYTES and time.monotonic() > deadline:
            raise TimeoutError("answer body too slow")
    return b"".join(chunks)[:RESPONSE_EXCERPT_BYTES].decode("utf-8", errors="replace")


def _release(response: BaseHTTPResponse) -> None:
    """Give the connection back for the next POST when its answer was read to the end; otherwise
    close it (the rest of a long answer is never read)."""
    if not response.isclosed():
        response.close()
    response.release_conn()


def safe_get(url: str, *, max_bytes: int, timeout: float) -> tuple[bytes, str]:
    """GET a resource of at most `max_bytes`; return (content, content type without parameters).

    Raises UnsafeTarget for refused URLs and TransportError for everything else that goes wrong;
    both carry a message fit for the caller, the details are logged.
    """
    validate_target_url(url)
    try:
        response = http_session().get(url, timeout=timeout, allow_redirects=False, stream=True)
    except requests.RequestException as exc:
        refusal = _refusal_in(exc)
        if refusal is not None:
            logger.warning("Refused %s at connection time: %s", url, refusal)
            raise UnsafeTarget(CONNECT_REFUSED_MESSAGE) from None
        logger.info("Could not fetch %s: %s", url, exc)
        kind = "timed out" if isinstance(exc, requests.Timeout) else "could not be reached"
        raise TransportError(f"the URL {kind}") from None
    with response:
        if response.is_redirect:
            raise TransportError("the URL answered with a redirect; give the final address")
        if response.status_code >= 400:
            raise TransportError(f"the URL answered HTTP {response.status_code}")
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > max_bytes:
            raise TransportError(f"the resource is larger than {max_bytes} bytes")
        content = b""
        try:
            for chunk in response.iter_content(chunk_size=64 * 1024):
                content += chunk
                if len(content) > max_bytes:
                    raise TransportError(f"the resource is larger than {max_bytes} bytes")
        except requests.RequestException as exc:
            logger.info("Could not read %s: %s", url, exc)
            raise TransportError("the URL's answer could not be read") from None
        content_type = response.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        return content, content_type
