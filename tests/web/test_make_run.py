"""`make run` as a newcomer starts it (issue 45): it refuses a taken port before starting anything, prints
its banner only once its own web process answers, with one clock per log line and each check warning once;
an unreachable database is one paragraph; `make help` lists the targets.

Started for real with make on a free port (never 8000) and a var dir of its own (embedded SQLite, its own
filesystem broker), so a developer's `make run` and database are untouched. `-o .venv/.installed` keeps make
from reinstalling the shared virtualenv whatever the requirements' times say."""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.faults import free_port

ROOT = Path(__file__).resolve().parents[2]
# Settings the suite sets for itself that a newcomer's shell does not have (tests/isolation.py).
NOT_INHERITED = {
    "PONTE_VAR_DIR",
    "PROMETHEUS_MULTIPROC_DIR",
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
}
MAKE = ["make", "--no-print-directory", "-o", ".venv/.installed"]
HONCHO_LINE = re.compile(r"^\d\d:\d\d:\d\d (\S+)\s+\| (.*)$")
A_CLOCK = re.compile(r"\d\d:\d\d:\d\d")

pytestmark = pytest.mark.live


def newcomer_env(tmp_path: Path, port: int, **more: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in NOT_INHERITED}
    return {
        **env,
        "PONTE_VAR_DIR": str(tmp_path / "var"),
        "PONTE_PORT": str(port),
        "PONTE_BASE_URL": f"http://127.0.0.1:{port}",
        "PYTHONUNBUFFERED": "1",
        **more,
    }


def test_make_run_refuses_a_taken_port_naming_it_and_ponte_port_before_starting_anything(tmp_path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [*MAKE, "run"],
            cwd=ROOT,
            env=newcomer_env(tmp_path, port),
            capture_output=True,
            text=True,
            timeout=120,
        )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"Port {port} on 127.0.0.1 is already in use" in output and "PONTE_PORT" in output
    assert "Ponte is up" not in output and "honcho" not in output and "Traceback" not in output
    with sqlite3.connect(tmp_path / "var" / "ponte.sqlite3") as database:  # refused before migrating
        assert not database.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()


def test_an_unreachable_database_is_one_paragraph_without_a_traceback(tmp_path) -> None:
    env = newcomer_env(tmp_path, free_port(), DATABASE_URL="postgres://ponte:s3cret@127.0.0.1:9/ponte")
    result = subprocess.run(
        [sys.executable, "manage.py", "preflight"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "s3cret" not in result.stderr
    paragraph = result.stderr.strip()
    assert "\n" not in paragraph, paragraph
    assert "cannot reach its database at postgres://ponte:***@127.0.0.1:9/ponte" in paragraph
    assert "DATABASE_URL" in paragraph


def test_make_help_lists_every_target_with_what_it_does() -> None:
    result = subprocess.run(
        ["make", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0
    phony = (
        re.search(r"^\.PHONY: (.*)$", (ROOT / "Makefile").read_text(), flags=re.MULTILINE).group(1).split()
    )
    listed = set(re.findall(r"^  make (\S+)\s+\S", result.stdout, flags=re.MULTILINE))
    assert listed == set(phony)


def wait_for_banner(log: Path, make: subprocess.Popen, timeout: float = 400) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")
        if re.search(r"Ctrl-C stops everything\.\n=+\n", text):
            return text
        assert make.poll() is None, f"make run ended while starting:\n{text[-4000:]}"
        time.sleep(0.5)
    raise AssertionError(f"no banner within {timeout} s:\n{log.read_text()[-4000:]}")


def test_make_run_prints_its_banner_once_its_own_web_answers_with_one_clock_per_line(tmp_path) -> None:
    port = free_port()
    log = tmp_path / "make-run.log"
    with log.open("w") as out:
        make = subprocess.Popen(
            [*MAKE, "run"],
            cwd=ROOT,
            env=newcomer_env(tmp_path, port),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        text = wait_for_banner(log, make)
        time.sleep(2)  # the lines the workers print just after the banner
        text = log.read_text(errors="replace")
    finally:
        os.killpg(make.pid, signal.SIGINT)
        try:
            make.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(make.pid, signal.SIGKILL)
            make.wait()
    assert make.returncode in (0, -signal.SIGINT), text[-3000:]  # make itself gets the Ctrl-C too
    banner = text[text.index("Ponte is up") :]
    # This run's web answered first: the token it served is in its log before the banner.
    assert f"Uvicorn running on http://127.0.0.1:{port}" in text[: text.index("Ponte is up")]
    assert "DEGRADED" not in banner  # embedded default: local cache, filesystem broker
    assert re.search(r"QR current until \d\d:\d\d:\d\d UTC[+-]\d\d:\d\d", banner)
    assert text.count("bonds.W001") <= 1  # migrate's checks only (none before July)
    log_lines = [match.group(2) for match in map(HONCHO_LINE.match, text.splitlines()) if match]
    assert log_lines, text[-3000:]
    leveled = [line for line in log_lines if re.match(r"\[?(INFO|WARNING|ERROR)\b", line)]
    assert leveled and not [line for line in leveled if A_CLOCK.search(line.split("]:")[0])], leveled[:5]
