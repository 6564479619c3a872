"""Memory per idle WhatsApp session with the library loaded (run by bench/engines.py in a child process).

WhatsApp's servers cannot be reached from here, so an "idle session" is the closest offline stand-in: a
neonize client on its own store whose connection is held open by a local proxy that accepts and never
answers (the client, its goroutines and its thread exist, as for a session waiting on the network). A
paired session also holds Signal sessions and app state, so the real figure is higher; the target is
the best peer's published ~50 MB per session (WAHA GOWS, whatsmeow). Nothing dials beyond 127.0.0.1.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

SESSIONS = int(sys.argv[1]) if len(sys.argv) > 1 else 20


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def blackhole() -> tuple[int, list[socket.socket]]:
    """A proxy on 127.0.0.1 that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(512)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            conn, _ = server.accept()
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    return server.getsockname()[1], held


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    base = rss_kib()
    from messaging.engines.whatsapp.library import load

    lib = load()
    loaded = rss_kib()
    port, held = blackhole()
    proxy = lib.ProxySettings(proxy_address=f"socks5://127.0.0.1:{port}")
    store = str(Path(tempfile.mkdtemp(prefix="ponte-wa-bench-")) / "store.sqlite3")
    clients = []
    for i in range(SESSIONS):
        client = lib.NewClient(store, uuid=f"bench-{i}", new_device=True)
        client.event.qr(lambda _c, _d: None)
        threading.Thread(target=client.connect, args=(proxy,), daemon=True).start()
        clients.append(client)
        time.sleep(0.05)  # neonize's Go side keeps clients in unguarded maps: start one at a time
    time.sleep(3)
    after = rss_kib()
    waiting = len(held)
    per = (after - loaded) / SESSIONS
    once = (loaded - base) / 1024
    print(f"  library loaded: RSS {base / 1024:.0f} → {loaded / 1024:.0f} MiB (+{once:.0f} MiB per process)")
    grown = (after - loaded) / 1024
    print(f"  {SESSIONS} idle clients ({waiting} connections held at the local proxy): +{grown:.1f} MiB")
    print(f"  memory per idle WhatsApp session: {per / 1024:.2f} MiB (target ≤ 50 MiB; paired: more)")


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    # The library's connect threads are not daemons and block on the silent proxy: leave at once.
    os._exit(0)
