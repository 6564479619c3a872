"""The local stand-ins for the outside world (tests/localhttp.py) answer at once and stop cleanly."""

from __future__ import annotations

import http.client
import socket
from http.server import BaseHTTPRequestHandler

from tests.localhttp import serving, start_server, stop_server


class _KeepAlive(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    no_delay: list[int] = []

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self.no_delay.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


def test_a_stand_in_sends_its_replies_without_nagles_delay():
    _KeepAlive.no_delay.clear()
    with serving(_KeepAlive) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=5)
        connection.request("GET", "/")
        assert connection.getresponse().read() == b"ok"
        connection.close()
    assert _KeepAlive.no_delay == [1]


def test_stopping_a_stand_in_ends_the_keep_alive_connections_it_still_holds():
    server = start_server(_KeepAlive)
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=5)
    connection.request("GET", "/")
    assert connection.getresponse().read() == b"ok"
    # The handler now waits for the client's next request on the open connection; the stop ends it.
    stop_server(server)
    assert connection.sock.recv(1) == b""  # the server's side is closed: its handler thread has ended
    connection.close()
