"""The SSRF-safe transport against a real local HTTP server."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import override_settings

from net import addresses as addresses_module
from net.transport import (
    RESPONSE_EXCERPT_BYTES,
    TransportError,
    UnsafeTarget,
    safe_get,
    safe_post,
    validate_target_url,
)
from tests.localhttp import serving

LOOPBACK_ALLOWED = override_settings(PONTE_WEBHOOK_ALLOW_NETWORKS=["127.0.0.0/8"])


class _Handler(BaseHTTPRequestHandler):
    received: list[tuple[str, dict[str, str], bytes]]

    def log_message(self, *args) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.received.append((self.path, dict(self.headers), body))
        if self.path == "/slow":
            time.sleep(1.5)
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:1/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        payload = b"x" * 10_000 if self.path in {"/big", "/image-big"} else b"thanks"
        self.send_response(500 if self.path == "/fail" else 200)
        self.send_header("Content-Type", "image/png" if self.path.startswith("/image") else "text/plain")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = _answer


@pytest.fixture
def receiver() -> Iterator[ThreadingHTTPServer]:
    with serving(_Handler) as server:
        server.received = []
        yield server


def url_of(server: ThreadingHTTPServer, path: str, host: str = "127.0.0.1") -> str:
    return f"http://{host}:{server.server_address[1]}{path}"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",  # loopback
        "http://localhost/hook",  # a name that resolves to loopback
        "http://2130706433/hook",  # loopback as an integer
        "http://0x7f.1/hook",  # loopback in hex
        "http://[::1]/hook",  # IPv6 loopback
        "http://[::ffff:127.0.0.1]/hook",  # IPv4-mapped IPv6
        "http://10.1.2.3/hook",  # private
        "http://172.16.0.1/hook",
        "http://192.168.1.10/hook",
        "http://169.254.169.254/latest/meta-data/",  # link-local, cloud metadata
        "http://100.64.0.1/hook",  # CGNAT
        "http://[fd00::1]/hook",  # unique-local
        "http://[fe80::1]/hook",  # IPv6 link-local
        "http://0.0.0.0/hook",  # unspecified
        "http://224.0.0.1/hook",  # multicast
    ],
)
def test_registration_refuses_every_non_public_address_class(url: str) -> None:
    with pytest.raises(UnsafeTarget):
        validate_target_url(url)


@pytest.mark.parametrize("url", ["ftp://example.com/x", "file:///etc/passwd", "http:///nohost", "not a url"])
def test_registration_refuses_other_schemes_and_missing_hosts(url: str) -> None:
    with pytest.raises(UnsafeTarget):
        validate_target_url(url)


def test_registration_refuses_credentials_in_the_url() -> None:
    with pytest.raises(UnsafeTarget, match="user name or password"):
        validate_target_url("https://user:pw@93.184.216.34/hook")


def test_registration_accepts_a_public_address() -> None:
    validate_target_url("https://93.184.216.34/hook")


def test_an_allow_listed_network_opens_loopback() -> None:
    with LOOPBACK_ALLOWED:
        validate_target_url("http://127.0.0.1:9/hook")


def test_post_reaches_an_allow_listed_receiver_with_body_and_headers(receiver) -> None:
    with LOOPBACK_ALLOWED:
        result = safe_post(url_of(receiver, "/hook"), body=b'{"a":1}', headers={"X-Test": "1"}, timeout=5)
    assert result.ok and result.status == 200 and result.body_excerpt == "thanks"
    path, headers, body = receiver.received[0]
    assert (path, body, headers["X-Test"]) == ("/hook", b'{"a":1}', "1")


def test_post_is_refused_at_connection_time_when_the_address_is_not_allowed(receiver) -> None:
    # Registered while allowed, then the network is closed: the connection itself re-checks.
    with pytest.raises(UnsafeTarget, match="connection time"):
        safe_post(url_of(receiver, "/hook"), body=b"{}", headers={}, timeout=5)
    assert receiver.received == []


def test_a_hostname_resolving_to_loopback_is_refused_at_connection_time(receiver) -> None:
    with pytest.raises(UnsafeTarget):
        safe_post(url_of(receiver, "/hook", host="localhost"), body=b"{}", headers={}, timeout=5)
    assert receiver.received == []


def test_redirects_are_not_followed(receiver) -> None:
    with LOOPBACK_ALLOWED:
        result = safe_post(url_of(receiver, "/redirect"), body=b"{}", headers={}, timeout=5)
    assert result.status == 302 and result.ok is True  # below 400, recorded as is, never followed
    assert [path for path, _, _ in receiver.received] == ["/redirect"]


def test_server_errors_are_reported_not_raised(receiver) -> None:
    with LOOPBACK_ALLOWED:
        result = safe_post(url_of(receiver, "/fail"), body=b"{}", headers={}, timeout=5)
    assert result.status == 500 and not result.ok and result.error is None


def test_a_slow_receiver_times_out(receiver) -> None:
    with LOOPBACK_ALLOWED:
        result = safe_post(url_of(receiver, "/slow"), body=b"{}", headers={}, timeout=0.5)
    assert not result.ok and "timeout" in result.error


def test_a_closed_port_is_a_connection_error() -> None:
    with LOOPBACK_ALLOWED:
        result = safe_post("http://127.0.0.1:9/hook", body=b"{}", headers={}, timeout=2)
    assert result.status is None and result.error.startswith("connection error")


def test_answers_are_kept_to_about_two_kilobytes(receiver) -> None:
    with LOOPBACK_ALLOWED:
        result = safe_post(url_of(receiver, "/big"), body=b"{}", headers={}, timeout=5)
    assert len(result.body_excerpt) == RESPONSE_EXCERPT_BYTES


def test_get_returns_content_and_type(receiver) -> None:
    with LOOPBACK_ALLOWED:
        content, content_type = safe_get(url_of(receiver, "/image"), max_bytes=1000, timeout=5)
    assert (content, content_type) == (b"thanks", "image/png")


def test_get_refuses_resources_over_the_size_limit(receiver) -> None:
    with LOOPBACK_ALLOWED, pytest.raises(TransportError, match="larger than"):
        safe_get(url_of(receiver, "/image-big"), max_bytes=1000, timeout=5)


def test_get_refuses_loopback_without_the_allow_list(receiver) -> None:
    with pytest.raises(UnsafeTarget):
        safe_get(url_of(receiver, "/image"), max_bytes=1000, timeout=5)


@pytest.fixture
def resolver(monkeypatch) -> Callable[[list[str]], None]:
    """A stand-in DNS: every name resolves to the given addresses, in this order."""

    def answer(addresses: list[str]) -> None:
        def getaddrinfo(host, port, *args, **kwargs):
            return [
                (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
                for a in addresses
            ]

        monkeypatch.setattr(addresses_module.socket, "getaddrinfo", getaddrinfo)

    return answer


@pytest.mark.parametrize(
    "address",
    ["2002:7f00:1::", "64:ff9b::7f00:1", "fec0::1", "192.0.0.9", "198.18.0.1", "::ffff:169.254.169.254"],
)
def test_connection_time_refuses_every_class_a_name_resolves_to(receiver, resolver, address) -> None:
    resolver([address])
    with pytest.raises(UnsafeTarget, match="connection time") as refused:
        safe_post(url_of(receiver, "/hook", host="hooks.example"), body=b"{}", headers={}, timeout=5)
    assert address not in refused.value.message
    assert receiver.received == []


def test_a_name_resolving_to_one_refused_address_among_public_ones_is_refused(receiver, resolver) -> None:
    resolver(["127.0.0.1", "10.0.0.1"])
    with LOOPBACK_ALLOWED, pytest.raises(UnsafeTarget):
        safe_post(url_of(receiver, "/hook", host="hooks.example"), body=b"{}", headers={}, timeout=5)
    assert receiver.received == []


def test_each_vetted_address_is_tried_in_order_until_one_answers(receiver, resolver) -> None:
    # 127.0.0.3 has nothing listening on the receiver's port (it is bound to 127.0.0.1 only).
    resolver(["127.0.0.3", "127.0.0.1"])
    with LOOPBACK_ALLOWED:
        result = safe_post(url_of(receiver, "/hook", host="hooks.example"), body=b"{}", headers={}, timeout=5)
    assert result.ok and result.status == 200
    _path, headers, _ = receiver.received[0]
    assert headers["Host"] == f"hooks.example:{receiver.server_address[1]}"  # the name, not the address


def test_when_no_vetted_address_answers_the_last_failure_is_reported(resolver) -> None:
    resolver(["127.0.0.3", "127.0.0.4"])
    with LOOPBACK_ALLOWED:
        result = safe_post("http://hooks.example:9/hook", body=b"{}", headers={}, timeout=2)
    assert result.status is None and result.error.startswith("connection error")


def test_a_failed_fetch_tells_the_caller_no_internal_detail(resolver) -> None:
    resolver(["127.0.0.3"])
    with LOOPBACK_ALLOWED, pytest.raises(TransportError) as failed:
        safe_get("http://images.example:9/x.png", max_bytes=1000, timeout=2)
    assert str(failed.value) == "the URL could not be reached"


class _KeepAliveHandler(_Handler):
    protocol_version = "HTTP/1.1"  # answers keep the connection open, as real receivers do

    def _answer(self) -> None:
        self.server.peers.append(self.client_address[1])
        super()._answer()

    do_GET = do_POST = _answer


@pytest.fixture
def keep_alive_receiver() -> Iterator[ThreadingHTTPServer]:
    with serving(_KeepAliveHandler) as server:
        server.received, server.peers = [], []
        yield server


def test_posts_to_one_target_reuse_one_keep_alive_connection(keep_alive_receiver) -> None:
    with LOOPBACK_ALLOWED:
        results = [
            safe_post(url_of(keep_alive_receiver, "/hook"), body=b"{}", headers={}, timeout=5)
            for _ in range(3)
        ]
    assert [r.status for r in results] == [200, 200, 200]
    assert len(set(keep_alive_receiver.peers)) == 1


def test_a_long_answer_read_only_in_part_does_not_spoil_the_next_post(keep_alive_receiver) -> None:
    with LOOPBACK_ALLOWED:
        big = safe_post(url_of(keep_alive_receiver, "/big"), body=b"{}", headers={}, timeout=5)
        after = safe_post(url_of(keep_alive_receiver, "/hook"), body=b'{"n":2}', headers={}, timeout=5)
    assert len(big.body_excerpt) == RESPONSE_EXCERPT_BYTES
    assert (after.status, after.body_excerpt, after.error) == (200, "thanks", None)
    assert keep_alive_receiver.received[-1][2] == b'{"n":2}'
