"""The web process as the Procfile starts it, on a free port of 127.0.0.1 and the test database."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import database_url_of_test_db
from tests.tiers import require_live

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        assert process.poll() is None, f"{what} exited while starting"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            assert time.monotonic() < deadline, f"{what} did not listen on {port} within {timeout} s"
            time.sleep(0.2)


def stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def procfile_web_command() -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith("web:"):
            return line.removeprefix("web:").strip()
    raise AssertionError("the Procfile has no web line")


def start_web(port: int, **settings: str) -> subprocess.Popen:
    """The Procfile's web line on `port`, with `settings` added to the environment; returns once it
    listens."""
    require_live("the Procfile's web process")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PONTE_HOST": "127.0.0.1",
        "PONTE_PORT": str(port),
        "DATABASE_URL": database_url_of_test_db(),
        "PONTE_WEB_THREADS": "2",
        "LOG_LEVEL": "WARNING",
        **settings,
    }
    web = subprocess.Popen(
        ["sh", "-c", "exec " + procfile_web_command()], cwd=ROOT, env=env, start_new_session=True
    )
    try:
        wait_for_port(port, web, "the web process")
    except BaseException:
        stop(web)
        raise
    return web
