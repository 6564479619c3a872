"""Real parts for the engine tests: a private `redis-server` on a free port, `run_engine` subprocesses
on the test database, and the settings that point this process's RemoteEngine at them."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import redis

from tests.tiers import require_live
from tests.webhooks.support import wait_for, worker_database_url

BASE_DIR = Path(__file__).resolve().parents[2]
REMOTE = "messaging.engines.remote.RemoteEngine"
# Short leases and heartbeats so fault tests take seconds, not the production 15 s.
FAST = {"ENGINE_LEASE_SECONDS": "3", "ENGINE_HEARTBEAT_SECONDS": "0.5"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """`redis-server` on 127.0.0.1:<free port>, no persistence: a restart loses every key."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> RedisServer:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self.ping, timeout=20, what="redis-server to answer")
        return self

    def ping(self) -> bool:
        try:
            return redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping()
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def flush(self) -> None:
        redis.Redis.from_url(self.url).flushdb()


class EngineProcess:
    """`python manage.py run_engine` on the test database and the given Redis."""

    def __init__(
        self, redis_url: str, *, env: dict[str, str] | None = None, max_sessions: int = 1000
    ) -> None:
        self.id = f"test-{uuid.uuid4().hex[:8]}"
        self.env = {
            **os.environ,
            "DATABASE_URL": worker_database_url(),
            "ENGINE_REDIS_URL": redis_url,
            "MESSAGING_ENGINE": REMOTE,
            "ENGINE_DRIVER": "sandbox",
            "PYTHONUNBUFFERED": "1",
            "DB_CONN_MAX_AGE": "0",
            **FAST,
            **(env or {}),
        }
        self.redis_url = redis_url
        self.max_sessions = max_sessions
        self.log = Path(tempfile.mkstemp(prefix="ponte-engine-", suffix=".log")[1])
        self.process: subprocess.Popen | None = None

    def start(self) -> EngineProcess:
        require_live("an engine process")
        command = [
            sys.executable,
            "manage.py",
            "run_engine",
            "--id",
            self.id,
            "--max-sessions",
            str(self.max_sessions),
        ]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command, cwd=BASE_DIR, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        wait_for(self.registered, timeout=60, what=f"engine {self.id} to register (log {self.log})")
        return self

    def registered(self) -> bool:
        assert self.process is not None and self.process.poll() is None, self.log.read_text()[-3000:]
        with contextlib.suppress(redis.RedisError):
            return bool(redis.Redis.from_url(self.redis_url).exists(f"ponte:engine:alive:{self.id}"))
        return False

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL: no drain, leases lapse on their own."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=10)

    def terminate(self, timeout: float = 20) -> int:
        """SIGTERM: drains; returns the exit code."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def owner_of(redis_url: str, session_id: str) -> str | None:
    value = redis.Redis.from_url(redis_url).get(f"ponte:engine:lease:{session_id}")
    return value.decode() if value else None


def wait_until(predicate, *, timeout: float, what: str):
    """wait_for, with the bound the issue names (a generous fault-test bound, not a timing goal)."""
    start = time.monotonic()
    value = wait_for(predicate, timeout=timeout, what=what)
    return value, time.monotonic() - start
