"""What the benches share about the servers they start: a free local port, waiting for it to accept
connections, and Ponte's web process on one. (A bench runs as a script, so bench/ is its sys.path[0]:
`from serving import ...`.)"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, *, seconds: float = 60, what: str = "the server") -> None:
    """Return once 127.0.0.1:`port` accepts a connection; stop the bench if it does not within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{what} did not listen on port {port} within {seconds:.0f} s")


def start_web(env: dict[str, str], *, log: IO[bytes] | None = None) -> tuple[subprocess.Popen, int]:
    """Ponte's web process as production runs it (uvicorn serving config.asgi) with `env`, on a free
    port, once it accepts connections; its output to `log` (default: the bench's own)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port),
         "--no-access-log", "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT if log else None,
    )  # fmt: skip
    try:
        wait_for_port(port, seconds=90, what="the web process")  # a loaded machine starts slowly
    except SystemExit:
        process.kill()  # never listened: not left behind the bench
        raise
    return process, port


def start_worker(
    env: dict[str, str], concurrency: int, *, queues: str = "webhooks,celery", include: str = ""
) -> subprocess.Popen:
    """Ponte's worker (`celery -A config worker`, threads pool) consuming `queues`, also importing the
    modules of `include` (a bench's own tasks, never added to Ponte's), its output to worker.log."""
    log = open(Path(env["PONTE_VAR_DIR"]) / "worker.log", "wb")  # noqa: SIM115 (kept open for the worker)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            queues,
            *(["--include", include] if include else []),
            "--pool",
            "threads",
            "--concurrency",
            str(concurrency),
            "--loglevel",
            os.environ.get("BENCH_WORKER_LOGLEVEL", "WARNING"),
            "-n",
            f"bench-{uuid.uuid4().hex[:6]}@%h",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
            *os.environ.get("BENCH_WORKER_ARGS", "").split(),
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    return process


def bench_environment(tmp: Path) -> None:
    """What every bench process runs with: its own var dir (and SQLite file unless DATABASE_URL says
    otherwise), loopback receivers allowed, persistent connections and DEBUG off as a production
    worker runs, throwaway secrets, the project on sys.path."""
    os.environ["PONTE_VAR_DIR"] = str(tmp)
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
    os.environ["PONTE_WEBHOOK_ALLOW_NETWORKS"] = "127.0.0.0/8"
    os.environ.setdefault("DB_CONN_MAX_AGE", "60")
    os.environ["LOG_LEVEL"] = "WARNING"
    # DEBUG on keeps every SQL statement and wraps each cursor.
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", uuid.uuid4().hex * 2)
    os.environ.setdefault("PONTE_SECRET_KEYS", "YmVuY2gtb25seS1rZXktbm90LXVzZWQtYW55d2hlcmU=")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
