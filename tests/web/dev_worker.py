"""The Procfile's Celery worker, as `make run` starts it, noting what it receives, for
tests/web/test_suite_beside_make_run.py.

    python -m tests.web.dev_worker RECORD PROBE_QUEUE celery -A config worker ...

appends JSON lines to RECORD: `{"ready": <its var dir>}` once it consumes, then `{"task": <name>,
"origin": <the sender, "gen<pid>@<host>">}` for every task it receives. Once ready it sends itself a
probe on PROBE_QUEUE (a queue of its own, so no other worker can take it): receiving the probe shows it
really takes messages from its broker folder.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

PROBE_TASK = "tests.dev_worker.probe"


def main(record: Path, probe_queue: str, command: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from celery.bin.celery import main as celery_main
    from celery.signals import task_received, worker_ready
    from django.conf import settings

    from config.celery import app

    def note(line: dict) -> None:
        with record.open("a") as out:
            out.write(json.dumps(line) + "\n")

    @app.task(name=PROBE_TASK, ignore_result=True)
    def probe() -> None:
        """Does nothing: its arrival is the point."""

    @worker_ready.connect(weak=False)
    def ready(**kwargs) -> None:
        note({"ready": str(settings.VAR_DIR)})
        probe.apply_async(queue=probe_queue)

    @task_received.connect(weak=False)
    def received(request=None, **kwargs) -> None:
        note({"task": request.name, "origin": request.request_dict.get("origin", "")})

    sys.argv = command
    celery_main()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3:])
