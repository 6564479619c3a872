"""Real parts a fault test can break: a private `redis-server` it may stop and start again, a Ponte
web process (uvicorn, a subprocess with its own environment, so settings such as REDIS_URL are read the
way production reads them), and a PostgreSQL connection killed from another one. Never the shared Redis:
each RedisServer has its own free port."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from requests.structures import CaseInsensitiveDict

from tests.tiers import require_live

BASE_DIR = Path(settings.BASE_DIR)


def kill_the_connection_of(victim) -> None:
    """Terminate the PostgreSQL backend of Django connection `victim` from another connection
    (pg_terminate_backend, as an administrator or a failover does)."""
    import psycopg

    pid = victim.connection.info.backend_pid
    params = victim.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as killer:
        killer.execute("SELECT pg_terminate_backend(%s)", [pid])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


_redis_ports: set[int] = set()


def _unused_redis_port() -> int:
    """A free port no earlier private redis-server of this process had: the cache keeps per-location
    state for the process's life (its breaker, pending deletes, pooled client), which a later test on a
    reused port would otherwise inherit."""
    while (port := free_port()) in _redis_ports:
        pass
    _redis_ports.add(port)
    return port


def _wait(predicate: Any, *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class RedisServer:
    """`redis-server` on a free loopback port, without persistence; `stop()` kills it, `start()` brings
    it back (empty) on the same port."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed (apt-get install redis-server)")
        self.binary = binary
        self.port = _unused_redis_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def start(self) -> RedisServer:
        command = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(self._answers, timeout=15, what=f"redis-server on port {self.port}")
        return self

    def command_calls(self) -> dict[str, int]:
        """Calls per command since the server started (INFO commandstats; a script's own commands count
        too, beside its EVALSHA), without the HELLO and INFO that asking makes."""
        import redis

        stats = redis.Redis.from_url(self.url).info("commandstats")
        calls = {name.removeprefix("cmdstat_"): int(values["calls"]) for name, values in stats.items()}
        return {name: count for name, count in calls.items() if name not in ("hello", "info")}

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=15)
        self.process = None


@dataclass
class Reply:
    status: int
    headers: CaseInsensitiveDict  # header names are case-insensitive; servers differ in spelling
    body: Any
    seconds: float


class WebServer:
    """`uvicorn config.asgi:application` in a subprocess on a free port, with the given environment."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1", **env}
        self.port = free_port()
        self.log = Path(tempfile.mkstemp(prefix="ponte-web-", suffix=".log")[1])
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> WebServer:
        require_live("a web process")
        command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--log-level", "warning"]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, cwd=BASE_DIR, env=self.env, stdout=log, stderr=log)
        _wait(self._up, timeout=60, what=f"the web server to start (log {self.log})")
        return self

    def _up(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"the web server exited:\n{self.log.read_text()[-3000:]}")
        try:
            return self.call("GET", "/healthz").status == 200
        except OSError:
            return False

    def call(
        self, method: str, path: str, *, body: Any = None, headers: dict[str, str] | None = None
    ) -> Reply:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, raw, got = response.status, response.read(), CaseInsensitiveDict(response.headers)
        except urllib.error.HTTPError as error:
            status, raw, got = error.code, error.read(), CaseInsensitiveDict(error.headers)
        try:
            parsed: Any = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        return Reply(status, got, parsed, time.monotonic() - started)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)

    def output(self) -> str:
        return self.log.read_text(errors="replace")
