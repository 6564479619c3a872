"""A real HTTP server on 127.0.0.1 for tests that stand in for the outside world (BCB, Tesouro,
customers' receivers, image hosts): one way to start and stop it, whatever the handler."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# `stop_server` waits for the serving loop's next poll: a short interval keeps every stop short (the
# stdlib's default is half a second, paid by every test that starts a stand-in; at 50 ms the suite's
# ~400 stand-ins still spent ~10 s waiting). An idle loop waking 200 times a second costs nothing to see.
POLL_SECONDS = 0.005


def start_server(
    handler: type[BaseHTTPRequestHandler], *, poll_interval: float = POLL_SECONDS
) -> ThreadingHTTPServer:
    """Serve `handler` on a free loopback port in a daemon thread."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(poll_interval,), daemon=True).start()
    return server


def stop_server(server: ThreadingHTTPServer) -> None:
    server.shutdown()
    server.server_close()


def base_url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[ThreadingHTTPServer]:
    server = start_server(handler)
    try:
        yield server
    finally:
        stop_server(server)
