"""What `make run`'s console shows: the web process as the Procfile starts it logs each 404 once and no
warning per static file; the worker and beat keep the every-30-seconds sweeper quiet."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests
from django.conf import settings

from core.logfilters import RoutineTasks


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _web_command() -> str:
    procfile = Path(settings.BASE_DIR, "Procfile").read_text().splitlines()
    return next(line.split(":", 1)[1].strip() for line in procfile if line.startswith("web:"))


def test_the_web_process_logs_a_404_once_and_no_warning_per_static_file(subprocess_env, tmp_path) -> None:
    port = _free_port()
    env = {
        **subprocess_env,
        "PONTE_PORT": str(port),
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    }
    log = (tmp_path / "web.log").open("w+")
    web = subprocess.Popen(
        ["sh", "-c", _web_command()],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "the web process did not start"
            time.sleep(0.3)
        for name in ["admin/css/base.css", "admin/js/core.js", "admin/css/login.css"]:
            assert requests.get(f"{base}/static/{name}", timeout=10).status_code == 200
        assert requests.get(f"{base}/no-such-page", timeout=10).status_code == 404
        time.sleep(0.5)
    finally:
        os.killpg(web.pid, signal.SIGTERM)
        web.wait(timeout=30)
    log.seek(0)
    output = log.read()
    assert output.count("Not Found: /no-such-page") == 1, output
    assert "StreamingHttpResponse" not in output, output


def test_routine_sweeper_lines_are_dropped_and_its_failures_kept() -> None:
    def record(level: int, message: str, *args) -> logging.LogRecord:
        return logging.LogRecord("celery.beat", level, __file__, 1, message, args, None)

    routine = RoutineTasks()
    sweep = "webhooks: sweep due or stuck deliveries (webhooks.sweep_deliveries)"
    assert not routine.filter(record(logging.INFO, "Scheduler: Sending due task %s", sweep))
    assert routine.filter(record(logging.INFO, "Scheduler: Sending due task %s", "bonds.tasks.refresh_bonds"))
    assert routine.filter(record(logging.ERROR, "Task webhooks.sweep_deliveries[1] raised"))
    for name in ["celery.beat", "celery.worker.strategy", "celery.app.trace"]:
        assert any(isinstance(f, RoutineTasks) for f in logging.getLogger(name).filters), name
