"""SSRF-safe HTTP for everything Ponte fetches or posts on a customer's say-so.

Webhook deliveries and the profile-picture fetch go to URLs that callers choose, so a URL could aim at
Ponte's own network: loopback, private ranges, the cloud metadata address. Checking the URL once at
registration is not enough (DNS can change before the POST), so the check also sits where the socket is
opened: the connection resolves the host, refuses any address that is not globally routable, and connects
only to the vetted address while keeping the host name for the Host header, TLS SNI and the certificate
check. Redirects are never followed. `PONTE_WEBHOOK_ALLOW_NETWORKS` opens ranges for tests and LANs.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from config.errors import ValidationFailed

RESPONSE_EXCERPT_BYTES = 2048
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class UnsafeTarget(ValidationFailed):
    """The URL is not acceptable: bad scheme or host, or it resolves to a refused address."""

    default_message = "The URL must be http(s) and resolve only to public internet addresses."


class TransportError(Exception):
    """A fetch failed: network error, timeout, bad status, too large or wrong type."""


class RefusedAddress(OSError):
    """Raised inside the connection when the resolved address is refused (an OSError so urllib3
    treats it as a failed connection and never retries it elsewhere)."""


def _allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(cidr, strict=False) for cidr in settings.PONTE_WEBHOOK_ALLOW_NETWORKS]


def address_refusal(address: IPAddress) -> str | None:
    """Why `address` may not be reached, or None when it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if any(address in network for network in _allowed_networks()):
        return None
    for label, flag in (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
    ):
        if flag:
            return f"{address} is a {label} address"
    if not address.is_global:  # CGNAT 100.64/10, documentation ranges, 6to4 oddities…
        return f"{address} is not a public internet address"
    return None


def resolve_vetted(host: str, port: int) -> str:
    """Resolve `host` and return an address to connect to; raise RefusedAddress if any is refused."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise RefusedAddress(f"cannot resolve {host!r}: {exc.strerror}") from None
    addresses = [ipaddress.ip_address(info[4][0].split("%", 1)[0]) for info in infos]
    for address in addresses:
        reason = address_refusal(address)
        if reason:
            raise RefusedAddress(f"{host!r} resolves to a refused address: {reason}")
    return str(addresses[0])


def validate_target_url(url: str) -> None:
    """Check a URL at registration time: http(s), a host, and only public addresses behind it."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise UnsafeTarget(f"url is not a valid URL: {exc}") from None
    if parts.scheme not in {"http", "https"}:
        raise UnsafeTarget("url must start with http:// or https://")
    if not parts.hostname:
        raise UnsafeTarget("url has no host")
    if parts.username or parts.password:
        raise UnsafeTarget("url must not carry a user name or password; use the webhook secret")
    try:
        resolve_vetted(parts.hostname, port)
    except RefusedAddress as exc:
        raise UnsafeTarget(f"url refused: {exc}") from None


# --- The vetting connection classes ---------------------------------------------------------------


class _VettedConnectionMixin:
    _dns_host: str
    port: int

    def _new_conn(self) -> socket.socket:
        vetted = resolve_vetted(self._dns_host, self.port)
        host = self._dns_host
        self._dns_host = vetted  # connect to the vetted address only; self.host keeps the name
        try:
            return super()._new_conn()  # type: ignore[misc]
        finally:
            self._dns_host = host


class VettedHTTPConnection(_VettedConnectionMixin, HTTPConnection):
    pass


class VettedHTTPSConnection(_VettedConnectionMixin, HTTPSConnection):
    pass


class _VettedHTTPPool(HTTPConnectionPool):
    ConnectionCls = VettedHTTPConnection


class _VettedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = VettedHTTPSConnection


class VettedAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _VettedHTTPPool, "https": _VettedHTTPSPool}


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


@dataclass(frozen=True)
class PostResult:
    status: int | None
    body_excerpt: str
    duration_ms: int
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None and self.status is not None and self.status < 400


def safe_post(
    url: str,
    *,
    body: bytes,
    headers: dict[str, str],
    timeout: float,
    session: requests.Session | None = None,
) -> PostResult:
    """POST `body` to `url` within `timeout` seconds in all (connect, send, answer and read).

    Never raises for network trouble: the result carries the error. Raises UnsafeTarget when the
    address is refused at connection time, which callers record as a failed attempt.
    """
    started = time.monotonic()
    deadline = started + timeout

    def elapsed_ms() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        response = (session or http_session()).post(
            url, data=body, headers=headers, timeout=timeout, allow_redirects=False, stream=True
        )
    except requests.RequestException as exc:
        refusal = _refusal_in(exc)
        if refusal is not None:
            raise UnsafeTarget(f"url refused at connection time: {refusal}") from None
        kind = "timeout" if isinstance(exc, requests.Timeout) else "connection error"
        return PostResult(None, "", elapsed_ms(), f"{kind}: {exc}"[:500])
    try:
        excerpt = _read_excerpt(response, deadline)
    except (requests.RequestException, TimeoutError) as exc:
        return PostResult(response.status_code, "", elapsed_ms(), f"timeout while reading the answer: {exc}")
    finally:
        response.close()
    if time.monotonic() > deadline:
        return PostResult(
            response.status_code, excerpt, elapsed_ms(), f"no complete answer within {timeout:g} s"
        )
    return PostResult(response.status_code, excerpt, elapsed_ms(), None)


def _read_excerpt(response: requests.Response, deadline: float) -> str:
    """Read the first ~2 KB of the answer (all we store); the rest is discarded unread."""
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_content(chunk_size=1024):
        chunks.append(chunk)
        size += len(chunk)
        if size >= RESPONSE_EXCERPT_BYTES:
            break
        if time.monotonic() > deadline:
            raise TimeoutError("answer body too slow")
    return b"".join(chunks)[:RESPONSE_EXCERPT_BYTES].decode("utf-8", errors="replace")


def safe_get(url: str, *, max_bytes: int, timeout: float) -> tuple[bytes, str]:
    """GET a resource of at most `max_bytes`; return (content, content type without parameters).

    Raises UnsafeTarget for refused URLs and TransportError for everything else that goes wrong.
    """
    validate_target_url(url)
    try:
        response = http_session().get(url, timeout=timeout, allow_redirects=False, stream=True)
    except requests.RequestException as exc:
        refusal = _refusal_in(exc)
        if refusal is not None:
            raise UnsafeTarget(f"url refused at connection time: {refusal}") from None
        raise TransportError(f"could not fetch the URL: {exc}") from None
    with response:
        if response.is_redirect:
            raise TransportError("the URL answered with a redirect; give the final address")
        if response.status_code >= 400:
            raise TransportError(f"the URL answered HTTP {response.status_code}")
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > max_bytes:
            raise TransportError(f"the resource is larger than {max_bytes} bytes")
        content = b""
        for chunk in response.iter_content(chunk_size=64 * 1024):
            content += chunk
            if len(content) > max_bytes:
                raise TransportError(f"the resource is larger than {max_bytes} bytes")
        content_type = response.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        return content, content_type
