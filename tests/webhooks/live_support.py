"""Helpers of the live socket tests: a web process started as the Procfile starts it, and a WebSocket
client (websocket-client) that reads frames, pings and close codes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import websocket

from tests.faults import WebServer
from tests.tiers import require_live
from tests.web.test_server_model import procfile_web_command

ROOT = Path(__file__).resolve().parents[2]


class ProcfileWeb(WebServer):
    """The Procfile's web line (so its WebSocket options are the ones tested) on a free port."""

    def start(self) -> ProcfileWeb:
        require_live("the Procfile's web process")
        self.env.update(
            {
                "PONTE_HOST": "127.0.0.1",
                "PONTE_PORT": str(self.port),
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{self.env.get('PATH', '')}",
            }
        )
        command = ["sh", "-c", "exec " + procfile_web_command()]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while not self._up():
            assert time.monotonic() < deadline, f"the web process did not start (log {self.log})"
            time.sleep(0.1)
        return self

    def ws_url(self, **query: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws?" + urllib.parse.urlencode(query)


def web_env(database_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    return {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "PONTE_VAR_DIR": tempfile.mkdtemp(prefix="ponte-live-"),
        "DB_CONN_MAX_AGE": "0",
        "LOG_LEVEL": "WARNING",
        **extra,
    }


@dataclass
class Closed:
    code: int
    reason: str


class Client:
    """One WebSocket connection; `frame()` is the next JSON frame, or Closed."""

    def __init__(self, url: str, *, key: str | None = None, rcvbuf: int | None = None) -> None:
        options: dict[str, Any] = {"timeout": 15}
        if key is not None:
            options["header"] = [f"X-API-Key: {key}"]
        if rcvbuf is not None:
            options["sockopt"] = [(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)]
        self.ws = websocket.create_connection(url, **options)
        self.pings = 0
        self.pongs: list[bytes] = []

    def frame(self) -> dict[str, Any] | Closed:
        while True:
            opcode, frame = self.ws.recv_data_frame(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_TEXT:
                return json.loads(frame.data)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                data = frame.data or b""
                code = int.from_bytes(data[:2], "big") if len(data) >= 2 else 1005
                return Closed(code, data[2:].decode(errors="replace"))
            if opcode == websocket.ABNF.OPCODE_PING:
                self.pings += 1  # websocket-client has answered it already
            elif opcode == websocket.ABNF.OPCODE_PONG:
                self.pongs.append(frame.data)

    def ready(self) -> dict[str, Any]:
        first = self.frame()
        assert isinstance(first, dict) and first.get("type") == "ready", first
        return first

    def events(self, count: int) -> list[dict[str, Any]]:
        got = []
        while len(got) < count:
            frame = self.frame()
            assert isinstance(frame, dict), f"closed after {len(got)} of {count} events: {frame}"
            if "event" in frame:
                got.append(frame)
        return got

    def send(self, value: dict[str, Any]) -> None:
        self.ws.send(json.dumps(value))

    def close(self) -> None:
        try:
            self.ws.close(timeout=1)
        except Exception:
            self.ws.shutdown()


def refused(url: str, **kwargs: Any) -> tuple[dict[str, Any], Closed]:
    """Connect to a socket that refuses: its error frame and its close."""
    client = Client(url, **kwargs)
    try:
        error = client.frame()
        closed = client.frame()
    finally:
        client.close()
    assert isinstance(error, dict) and error.get("type") == "error", error
    assert isinstance(closed, Closed), closed
    return error, closed
