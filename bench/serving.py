"""What the benches share about the servers they start: a free local port, and waiting for it to accept
connections. (A bench runs as a script, so bench/ is its sys.path[0]: `from serving import ...`.)"""

from __future__ import annotations

import socket
import time


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, *, seconds: float = 20, what: str = "the server") -> None:
    """Return once 127.0.0.1:`port` accepts a connection; stop the bench if it does not within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{what} did not listen on port {port} within {seconds:.0f} s")
