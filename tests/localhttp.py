"""A real HTTP server on 127.0.0.1 for tests that stand in for the outside world (BCB, Tesouro,
customers' receivers, image hosts): one way to start and stop it, whatever the handler."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# `stop_server` waits for the serving loop's next poll: a short interval keeps every stop short (the
# stdlib's default is half a second, paid by every test that starts a stand-in; at 50 ms the suite's
# ~400 stand-ins still spent ~10 s waiting). An idle loop waking 200 times a second costs nothing to see.
POLL_SECONDS = 0.005


class StandInServer(ThreadingHTTPServer):
    """A threading server that also ends its open connections when stopped: a keep-alive client (the
    delivery pools) otherwise holds each connection's handler thread, blocked on the next request, until
    the test process exits."""

    daemon_threads = True

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

    def process_request(self, request, client_address) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self._open_lock:
            still_open = list(self._open)
        for connection in still_open:
            # The handler's read ends and it closes the socket (unless it already has: OSError).
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


def start_server(
    handler: type[BaseHTTPRequestHandler], *, poll_interval: float = POLL_SECONDS
) -> StandInServer:
    """Serve `handler` on a free loopback port in a daemon thread, its replies sent without Nagle's
    delay: a keep-alive (HTTP/1.1) handler writes the head and the body apart, and the body would wait
    for the client's delayed ACK of the head, ~40 ms on every reply (as real servers do, TCP_NODELAY)."""
    handler = type(handler.__name__, (handler,), {"disable_nagle_algorithm": True})
    server = StandInServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(poll_interval,), daemon=True).start()
    return server


def stop_server(server: StandInServer) -> None:
    server.shutdown()
    server.close_connections()
    server.server_close()


def base_url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[StandInServer]:
    server = start_server(handler)
    try:
        yield server
    finally:
        stop_server(server)
