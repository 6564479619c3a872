"""Real web processes for the metrics and log tests: `uvicorn config.asgi:application` on the test
database, its log lines in a file, and the Prometheus text it serves, parsed."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import database_url_of_test_db
from tests.tiers import require_live

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebServer:
    """One web process as the Procfile starts it, with `env` on top of this process's environment."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url_of_test_db(),
            "PONTE_WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8",
            "LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        self.log = Path(tempfile.mkstemp(prefix="ponte-web-", suffix=".log")[1])
        self.process: subprocess.Popen | None = None

    def start(self) -> WebServer:
        require_live("a web process")
        command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(self.port)]
        command += ["--host", "127.0.0.1", "--no-access-log"]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + 60
        while self.request("GET", "/healthz")[0] != 200:
            assert self.process.poll() is None, f"the web process exited:\n{self.log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, "the web process did not answer within 60 s"
            time.sleep(0.2)
        return self

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def request(
        self, method: str, path: str, *, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        data = json.dumps(body).encode() if body is not None else None
        sent = {"Content-Type": "application/json", **(headers or {})} if data is not None else headers or {}
        try:
            client = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
            client.request(method, path, body=data, headers=sent)
            response = client.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        except OSError:
            return 0, {}, b""

    def scrape(self, token: str | None = None) -> str:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        status, _headers, body = self.request("GET", "/metrics", headers=headers)
        assert status == 200, body
        return body.decode()

    def log_lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """{(sample name, sorted labels): value} of a Prometheus text exposition."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(text: str, name: str, **labels: str) -> float:
    """The sample's value, 0 when it is not exported."""
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


def family_names(text: str) -> set[str]:
    """Every metric name a scrape exports: families and their samples (_total, _bucket, _count…)."""
    names = set()
    for family in text_string_to_metric_families(text):
        names.add(family.name)
        names.update(sample.name for sample in family.samples)
        if family.type == "counter":
            names.add(family.name + "_total")
        if family.type == "histogram":
            names.update(family.name + suffix for suffix in ("_bucket", "_count", "_sum"))
    return names


def json_lines(lines: list[str]) -> list[dict[str, Any]]:
    parsed = []
    for line in lines:
        start = line.find("{")
        if start < 0:
            continue
        try:
            parsed.append(json.loads(line[start:]))
        except ValueError:
            continue
    return parsed
