"""Worker crash recovery: a Celery worker killed with SIGKILL while it is sending to slow receivers.

    .venv/bin/python bench/worker_kill.py [--targets 12] [--per-target 4] [--answer-seconds 1.5]

Runs on what the environment points at (DATABASE_URL and REDIS_URL, or a throw-away SQLite file and the
filesystem broker). One local receiver answers every POST after `--answer-seconds`; each target is its own
path. N events are emitted, the worker is killed once the first POSTs are in flight (so about N
deliveries sit in `sending`), and a new worker is started at once. No beat runs: what recovers the
deliveries is the claim lease and the new worker's start-up sweeps.

Prints: deliveries in `sending` at the kill, seconds from the new worker being ready to the last
delivery, the worst event → final receipt, and how many were lost or received twice (a receiver
deduplicates those on webhook-id). Target (issue 13): every delivery within 15 s of the new worker.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.webhooks import start_worker  # noqa: E402


class Receiver:
    def __init__(self, answer_seconds: float) -> None:
        self.received: list[tuple[str, float]] = []  # (webhook-id, when)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                time.sleep(answer_seconds)
                receiver.received.append((self.headers.get("webhook-id", ""), time.time()))
                try:
                    self.send_response(200)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the sender was killed

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, target: int) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/t{target}"


def _wait_ready(log: Path, timeout: float = 90) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and " ready." in log.read_text(errors="replace"):
            return time.monotonic()
        time.sleep(0.05)
    raise SystemExit(f"worker did not start; see {log}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--targets", type=int, default=12)
    parser.add_argument("--per-target", type=int, default=4)
    parser.add_argument("--answer-seconds", type=float, default=1.5)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="ponte-bench-kill-"))
    os.environ["PONTE_VAR_DIR"] = str(tmp)
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp / 'bench.sqlite3'}")
    os.environ["PONTE_WEBHOOK_ALLOW_NETWORKS"] = "127.0.0.0/8"
    os.environ["LOG_LEVEL"] = "WARNING"
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", uuid.uuid4().hex * 2)
    os.environ.setdefault("PONTE_SECRET_KEYS", "YmVuY2gtb25seS1rZXktbm90LXVzZWQtYW55d2hlcmU=")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["BENCH_WORKER_LOGLEVEL"] = "INFO"  # its " ready." line tells when it serves
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import transaction

    call_command("migrate", verbosity=0)
    from accounts.models import Plan
    from accounts.services import account_create
    from messaging.models import Session
    from webhooks.models import Delivery, Webhook
    from webhooks.services import emit

    receiver = Receiver(args.answer_seconds)
    account = account_create(name=f"bench-{uuid.uuid4().hex[:8]}", plan=Plan.objects.get(name="Empresarial"))
    sessions = []
    for target in range(args.targets):
        session = Session.objects.create(account=account, name=f"s{target}")
        Webhook.objects.create(
            account=account, session=session, url=receiver.url(target), events=["message"], secret="b"
        )
        sessions.append(session)

    concurrency = args.targets
    first = start_worker({**os.environ}, concurrency)
    _wait_ready(tmp / "worker.log")
    emitted_at = time.time()
    with transaction.atomic():  # hinted on commit: each target's drain claims all its events at once
        events = [
            emit(session_id=session.id, name="message", data={"id": f"M{n}"})
            for n in range(args.per_target)
            for session in sessions
        ]
    total = len(events)
    mine = Delivery.objects.filter(event__in=events)
    deadline = time.monotonic() + 30
    while mine.filter(status=Delivery.Status.SENDING).count() < total and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(args.answer_seconds / 2)  # POSTs in flight
    in_flight = mine.filter(status=Delivery.Status.SENDING).count()
    first.send_signal(signal.SIGKILL)
    first.wait()
    killed_at = time.monotonic()

    (tmp / "worker.log").unlink()
    second = start_worker({**os.environ}, concurrency)
    try:
        ready = _wait_ready(tmp / "worker.log")
        while mine.filter(status=Delivery.Status.DELIVERED).count() < total:
            if time.monotonic() - ready > 120:
                raise SystemExit("not all delivered within 120 s")
            time.sleep(0.05)
        done = time.monotonic()
    finally:
        second.send_signal(signal.SIGQUIT)
        second.wait(timeout=30)
    ids = [webhook_id for webhook_id, _ in receiver.received]
    expected = set(mine.values_list("dispatch_id", flat=True))
    worst = max(at for _, at in receiver.received) - emitted_at
    print(f"worker kill bench: {total} events to {args.targets} targets answering in {args.answer_seconds} s")
    print(f"  in `sending` at the kill        : {in_flight}")
    print(f"  new worker ready after the kill : {ready - killed_at:5.1f} s")
    print(f"  all delivered after it was ready: {done - ready:5.1f} s   (target <= 15 s)")
    print(f"  worst event -> final receipt    : {worst:5.1f} s")
    print(f"  lost: {len(expected - set(ids))}   received twice: {len(ids) - len(set(ids))}")


if __name__ == "__main__":
    main()
