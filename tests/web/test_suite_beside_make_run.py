"""`make test` beside a running `make run` in the same checkout: the suite keeps its own var dir, so the
dev worker takes none of the suite's tasks (tests/isolation.py)."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from tests.web.dev_worker import PROBE_TASK

ROOT = Path(settings.BASE_DIR)
# Started as `make test` starts it, on the embedded default (its filesystem broker is what is shared).
SUITE_TEST = "tests/webhooks/test_worker_delivery.py::test_delivered_at_the_first_try"
# Nothing the shell of `make run` / `make test` would not have: no var dir, no test database, no Redis.
NOT_INHERITED = {
    "PONTE_VAR_DIR",
    "PROMETHEUS_MULTIPROC_DIR",
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
}

pytestmark = [
    pytest.mark.worker,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc"),
]


def shell_env() -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in NOT_INHERITED}
    return {**env, "PYTHONUNBUFFERED": "1"}


def procfile_worker_command() -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith("worker:"):
            return line.removeprefix("worker:").strip()
    raise AssertionError("the Procfile has no worker line")


def parent_pids() -> dict[int, int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended meanwhile
            continue
        # "pid (command) state ppid ...", and the command may hold spaces or parentheses.
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


class ProcessTree:
    """Every process that `root` started, directly or not, while it ran (polled from /proc)."""

    def __init__(self, root: int) -> None:
        self.pids = {root}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(0.05):
            parents = parent_pids()
            grown = True
            while grown:
                more = {pid for pid, parent in parents.items() if parent in self.pids} - self.pids
                self.pids |= more
                grown = bool(more)

    def stop(self) -> set[int]:
        self._done.set()
        self._thread.join()
        return self.pids


def origin_pid(origin: str) -> int:
    """Celery's message origin for a sender that is not a worker node: "gen<pid>@<host>"."""
    name = origin.partition("@")[0]
    return int(name.removeprefix("gen")) if name.startswith("gen") and name[3:].isdigit() else -1


def read_record(record: Path) -> list[dict]:
    """The complete lines (the worker may be writing the last one)."""
    return [json.loads(line) for line in record.read_text().split("\n")[:-1]] if record.exists() else []


def wait_for_probe(record: Path, worker: subprocess.Popen, log: Path) -> dict:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        lines = read_record(record)
        if any(line.get("task") == PROBE_TASK for line in lines):
            return next(line for line in lines if "ready" in line)
        assert worker.poll() is None, f"the dev worker exited:\n{log.read_text()[-3000:]}"
        time.sleep(0.1)
    raise AssertionError(f"the dev worker took no probe from its broker in 60 s:\n{log.read_text()[-3000:]}")


def start_dev_worker(record: Path, log: Path) -> subprocess.Popen:
    """The Procfile's worker on the default var dir, also consuming a probe queue of its own."""
    probe_queue = f"probe-{uuid.uuid4()}"
    worker_line = procfile_worker_command()
    assert "--queues celery,webhooks " in worker_line, worker_line
    wrapper = shlex.join([sys.executable, "-m", "tests.web.dev_worker", str(record), probe_queue])
    command = f"exec {wrapper} " + worker_line.replace(
        "--queues celery,webhooks ", f"--queues celery,webhooks,{probe_queue} "
    )
    with log.open("wb") as out:
        return subprocess.Popen(
            ["sh", "-c", command], cwd=ROOT, env=shell_env(), stdout=out, stderr=subprocess.STDOUT
        )


def run_suite() -> tuple[str, set[int]]:
    """`python -m pytest SUITE_TEST` as a shell would start it: its output, and every process it ran."""
    suite = subprocess.Popen(
        [sys.executable, "-m", "pytest", SUITE_TEST, "-p", "no:cacheprovider", "-q"],
        cwd=ROOT,
        env=shell_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    tree = ProcessTree(suite.pid)
    try:
        output, _ = suite.communicate(timeout=150)
    finally:
        suite.kill()
        pids = tree.stop()
    assert suite.returncode == 0, output[-4000:]
    assert "1 passed" in output, output[-4000:]
    return output, pids


def test_the_suite_passes_beside_make_run_and_the_dev_worker_takes_none_of_its_tasks(tmp_path):
    record, log = tmp_path / "received.jsonl", tmp_path / "dev-worker.log"
    dev_worker = start_dev_worker(record, log)
    try:
        ready = wait_for_probe(record, dev_worker, log)
        assert ready["ready"] == str(ROOT / "var") != str(settings.VAR_DIR)
        _, suite_pids = run_suite()
    finally:
        dev_worker.send_signal(signal.SIGQUIT)  # cold shutdown: nothing of the dev is waited on
        dev_worker.wait(timeout=30)

    taken = [line for line in read_record(record) if origin_pid(line.get("origin", "")) in suite_pids]
    assert taken == [], f"the dev worker took the suite's tasks: {taken}"
