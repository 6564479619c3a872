"""The webhook bench's measuring instruments: a local receiver process (asyncio keep-alive HTTP server
that counts what arrives), CPU accounting from /proc, percentiles, and the raw pooled POST loop the
outbox is compared with. Run as a script it is the receiver (`--hang`: never answers).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# --- The receiver (a separate process) -----------------------------------------------------------


async def _serve(port: int, hang: bool) -> None:
    stats: dict = {"count": 0, "latencies": [], "first": None, "last": None}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path = lines[0].split(" ")[:2]
                length = 0
                for line in lines[1:]:
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                body = await reader.readexactly(length) if length else b""
                if method == "GET":
                    if path == "/reset":
                        stats.update(count=0, latencies=[], first=None, last=None)
                    answer = json.dumps(stats).encode()
                else:
                    if hang:
                        await asyncio.sleep(3600)
                    now = time.time()
                    data = json.loads(body)["data"]
                    emitted = data.get("emitted_at")
                    if emitted is None and str(data.get("text", "")).startswith("t="):
                        emitted = float(data["text"][2:].split()[0])
                    stats["count"] += 1
                    stats["first"] = stats["first"] or now
                    stats["last"] = now
                    if emitted:
                        stats["latencies"].append((now - emitted) * 1000)
                    answer = b'{"ok":true}'
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + str(len(answer)).encode()
                    + b"\r\n\r\n"
                    + answer
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


class ReceiverProcess:
    def __init__(self, *, hang: bool = False) -> None:
        args = [sys.executable, __file__] + (["--hang"] if hang else [])
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}/hook"

    def stats(self, reset: bool = False) -> dict:
        path = "/reset" if reset else "/stats"
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as reply:
            return json.loads(reply.read())

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


# --- Helpers ---------------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu_seconds() -> float:
    """Busy CPU time of the whole machine so far, every core (Linux /proc/stat; 0 elsewhere): with the
    database, broker and receivers on the same machine, what a figure really costs."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return 0.0
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class OwnCpu:
    """CPU time of every process serving the bench, summed: this process (emit), the worker, the web
    process, the receivers and the PostgreSQL backends connected to the bench's database (found when
    the count starts and ends, plus those that closed meanwhile through close_connection_counted). On
    a machine shared with other jobs the whole machine's busy time (machine_cpu_seconds) counts theirs
    too; this does not. Redis is shared and left out."""

    def __init__(self, pids: list[int], *, database: bool = True) -> None:
        self.pids = pids
        self.database = database  # False: these processes alone (a Redis server's, say)
        self.start: dict[int, float] = {}
        # Backends gone before the count ends (an emitting thread's connection, closed with its thread):
        # their CPU read just before they closed, else they would be missed.
        self.closed: dict[int, float] = {}

    def _backends(self) -> list[int]:
        from django.db import connection

        if not self.database or connection.vendor != "postgresql":
            return []
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid()"
            )
            return [row[0] for row in cursor.fetchall()]

    def __enter__(self) -> OwnCpu:
        self.start = {pid: cpu_seconds(pid) for pid in [*self.pids, *self._backends()]}
        if self.database:
            _counting.append(self)
        return self

    def backend_closing(self, pid: int) -> None:
        self.closed[pid] = max(0.0, cpu_seconds(pid) - self.start.get(pid, 0.0))

    def seconds(self) -> float:
        """The CPU so far; the count of backends closing ends here."""
        if self in _counting:
            _counting.remove(self)
        live = (set(self.pids) | set(self._backends()) | set(self.start)) - set(self.closed)
        return sum(max(0.0, cpu_seconds(pid) - self.start.get(pid, 0.0)) for pid in live) + sum(
            self.closed.values()
        )

    def __exit__(self, *exc) -> None:
        return None


# The counts running, told of each backend that closes (close_connection_counted).
_counting: list[OwnCpu] = []


def close_connection_counted() -> None:
    """Close this thread's database connection, its backend's CPU handed first to the counts running:
    a thread's connection opened and closed within a phase would otherwise be missed by them."""
    from django.db import connection

    if connection.vendor == "postgresql" and connection.connection is not None:
        pid = connection.connection.info.backend_pid
        for own in list(_counting):
            own.backend_closing(pid)
    connection.close()


def redis_server_pid() -> int | None:
    """The pid of the Redis server REDIS_URL names, when it runs on this machine (its CPU is then read
    like the bench's own processes'); None without Redis or for a remote one."""
    from urllib.parse import urlsplit

    url = os.environ.get("REDIS_URL", "")
    if urlsplit(url).hostname not in ("127.0.0.1", "localhost", "::1"):
        return None
    import redis

    try:
        pid = int(redis.Redis.from_url(url, socket_timeout=2).info("server")["process_id"])
    except Exception:  # no answer: leave Redis out rather than fail the bench
        return None
    return pid if Path(f"/proc/{pid}/stat").exists() else None


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def data_of(index: int) -> dict:
    """A typical `message` event (~1 KB body once enveloped)."""
    return {
        "id": f"3EB0{index:016X}",
        "chat": "5511999990000@s.whatsapp.net",
        "sender": "5511999990000@s.whatsapp.net",
        "pushName": "Benchmark Sender",
        # When it was emitted, read back by the receiver (the typed event keeps only its own fields).
        "text": f"t={time.time()} " + "Olá! Segue a proposta revisada com os valores atualizados. " * 8,
        "timestamp": int(time.time()),
        "fromMe": False,
        "type": "text",
        "emitted_at": time.time(),
    }


def wait_count(receiver: ReceiverProcess, count: int, timeout: float = 300) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stats = receiver.stats()
        if stats["count"] >= count:
            return stats
        time.sleep(0.1)
    raise SystemExit(f"only {receiver.stats()['count']} of {count} deliveries arrived within {timeout} s")


# --- Phases ------------------------------------------------------------------------------------------


def raw_loop(receiver: ReceiverProcess, *, events: int, threads: int) -> tuple[float, float, float]:
    """A pooled requests.Session POST loop (one session per thread): req/s, p50, p99 (ms)."""
    from net.transport import http_session
    from webhooks.outbox.posting import render_body
    from webhooks.signing import delivery_headers

    receiver.stats(reset=True)
    local = threading.local()

    def post(index: int) -> None:
        session = getattr(local, "session", None) or http_session()
        local.session = session
        body = render_body({"event": "message", "session_id": "x", "data": data_of(index), "timestamp": "t"})
        headers = delivery_headers(secret="bench", msg_id=f"msg_{index}", body=body, sent_at=_now())
        session.post(receiver.url, data=body, headers=headers, timeout=10, allow_redirects=False).close()

    started = time.time()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(post, range(events)))
    stats = wait_count(receiver, events)
    rate = events / (stats["last"] - started)
    return rate, percentile(stats["latencies"], 50), percentile(stats["latencies"], 99)


def _now():
    from django.utils import timezone

    return timezone.now()


if __name__ == "__main__":
    asyncio.run(_serve(0, "--hang" in sys.argv[1:]))
