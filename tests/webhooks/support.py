"""Real parts for the delivery tests: a threaded local HTTP receiver and a Celery worker subprocess."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection

from tests.localhttp import start_server, stop_server
from tests.tiers import require_live

BASE_DIR = Path(settings.BASE_DIR)
LOOPBACK = "127.0.0.0/8"


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class Receiver:
    """A customer's endpoint: answers each POST with the next scripted status (then `default`).

    `hang` makes every request wait that many seconds before answering (or until `release()`).
    """

    statuses: list[int] = field(default_factory=list)
    default: int = 200
    hang: float = 0.0
    answer: bytes | None = None
    received: list[Received] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None
    _released: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    arrived: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver._lock:
                    receiver.received.append(
                        Received(
                            self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.time()
                        )
                    )
                    status = receiver.statuses.pop(0) if receiver.statuses else receiver.default
                receiver.arrived.set()
                if receiver.hang:
                    receiver._released.wait(receiver.hang)
                answer = receiver.answer or (b'{"ok": true}' if status < 400 else b"receiver says no")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except OSError:
                    pass  # the sender went away (a killed worker)

        self.server = start_server(Handler)
        return self

    def release(self) -> None:
        self._released.set()

    def stop(self) -> None:
        self.release()
        if self.server is not None:
            stop_server(self.server)


def wait_for(predicate: Callable[[], Any], *, timeout: float = 60, what: str = "condition") -> Any:
    """Poll until `predicate()` is truthy; fail with `what` after `timeout` seconds (no timing asserted)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def worker_database_url() -> str:
    """The URL of the test database this process uses, for a worker subprocess."""
    params = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(params['NAME']).resolve()}"
    user = params.get("USER") or "postgres"
    password = f":{params['PASSWORD']}" if params.get("PASSWORD") else ""
    host = f"{params['HOST'] or '127.0.0.1'}:{params['PORT'] or 5432}"
    return f"postgres://{user}{password}@{host}/{params['NAME']}"


def purge_queues() -> None:
    """Drop messages left by earlier runs, so only this test's hints reach the worker."""
    from config.celery import app

    with app.connection_for_write() as conn:
        channel = conn.default_channel
        for queue in ("webhooks", "celery"):
            with contextlib.suppress(Exception):
                channel.queue_purge(queue)


class Worker:
    """`celery -A config worker -Q webhooks,celery --pool threads` on the test database."""

    def __init__(self, *, env: dict[str, str] | None = None, concurrency: int = 4) -> None:
        self.env = {
            **os.environ,
            "DATABASE_URL": worker_database_url(),
            "PONTE_WEBHOOK_ALLOW_NETWORKS": LOOPBACK,
            "PONTE_WEBHOOK_RETRY_DELAY_SCALE": "0.01",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        self.concurrency = concurrency
        self.log = Path(tempfile.mkstemp(prefix="ponte-worker-", suffix=".log")[1])
        self.process: subprocess.Popen | None = None

    def start(self) -> Worker:
        require_live("a Celery worker process")
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            "webhooks,celery",
            "--pool",
            "threads",
            "--concurrency",
            str(self.concurrency),
            "--loglevel",
            "INFO",
            "-n",
            f"test-{uuid.uuid4().hex[:8]}@%h",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
        ]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command, cwd=BASE_DIR, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        wait_for(self._ready, timeout=90, what=f"the Celery worker to start (log {self.log})")
        return self

    def _ready(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"the worker exited early:\n{self.log.read_text()[-3000:]}")
        return " ready." in self.log.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no warm shutdown, nothing acknowledged or cleaned up."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGQUIT)  # cold shutdown: do not wait for hanging receivers
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=15)

    def output(self) -> str:
        return self.log.read_text(errors="replace")
