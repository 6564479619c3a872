"""Replay priority benchmark: another webhook's live latency while one webhook replays a large window.

    .venv/bin/python bench/replay_priority.py [--replay 10000] [--live 200] [--rate 20] [--concurrency 8]
                                             [--chunk 100]

Runs on what the environment points at: DATABASE_URL and REDIS_URL (PostgreSQL + Redis), or, without
them, a throw-away SQLite file and the filesystem broker in a temporary folder. It starts its own local
receivers (separate processes) and its own Celery worker (threads pool).

1. Setup: webhook A (session A, receiver A) with `--replay` delivered deliveries of the last hour, written
   directly; webhook B (session B, receiver B) for live events.
2. Before: `--live` events on session B, one after another at `--rate` per second: p50 and p99 of emit to
   receipt at receiver B.
3. During: POST-equivalent replay of A's whole window (webhooks.registered.replay.webhook_replay), then
   the same live events on B while the replay runs; the same figures, and how many replayed deliveries
   reached receiver A meanwhile (so the replay was really running).
4. Prints the ratio p50 during / before (target <= 2). `--chunk` sets PONTE_WEBHOOK_REPLAY_CHUNK: a chunk
   as large as the replay hands the whole window to the worker at once, as replays did before issue 39.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

from delivery_instruments import ReceiverProcess, data_of, percentile, wait_count
from serving import bench_environment, start_worker


def live_phase(receiver: ReceiverProcess, session_id, *, events: int, rate: float) -> tuple[float, float]:
    """Emit `events` on the live session at `rate` per second: p50, p99 (ms) at its receiver."""
    from django.db import connection

    from webhooks.services import emit

    receiver.stats(reset=True)
    started = time.time()
    try:
        for index in range(events):
            delay = started + index / rate - time.time()
            if delay > 0:
                time.sleep(delay)
            emit(session_id=session_id, name="message", data=data_of(index), chat="live")
    finally:
        connection.close()
    stats = wait_count(receiver, events)
    return percentile(stats["latencies"], 50), percentile(stats["latencies"], 99)


def delivered_history(webhook, *, count: int) -> None:
    """`count` delivered deliveries of the webhook's events of the last hour, written in bulk."""
    from django.utils import timezone

    from webhooks.models import Delivery, Event
    from webhooks.payloads import envelope

    now = timezone.now()
    start_ms = int((now - timedelta(hours=1)).timestamp() * 1000)
    for offset in range(0, count, 1000):
        events = [
            Event(
                session_id=webhook.session_id,
                name="message",
                data=data_of(index),
                chat=f"replay-{index}",
                sequence=1,
                event_ms=start_ms + index,
                received_at_ms=start_ms + index,
                created_at=now - timedelta(minutes=30),
            )
            for index in range(offset, min(count, offset + 1000))
        ]
        Event.objects.bulk_create(events)
        Delivery.objects.bulk_create(
            Delivery(
                kind=Delivery.Kind.REGISTERED,
                event=event,
                session_id=webhook.session_id,
                webhook=webhook,
                target_url=webhook.url,
                payload=envelope(event, None),
                status=Delivery.Status.DELIVERED,
                attempt_count=1,
                delivered_at=now - timedelta(minutes=30),
                created_at=now - timedelta(minutes=30),
            )
            for event in events
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replay", type=int, default=10_000, help="deliveries in the replayed window")
    parser.add_argument("--live", type=int, default=200, help="live events per phase")
    parser.add_argument("--rate", type=float, default=20.0, help="live events per second")
    parser.add_argument("--concurrency", type=int, default=8, help="worker threads")
    parser.add_argument("--chunk", type=int, default=None, help="PONTE_WEBHOOK_REPLAY_CHUNK")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ponte-bench-"))
    bench_environment(tmp)
    if args.chunk:
        os.environ["PONTE_WEBHOOK_REPLAY_CHUNK"] = str(args.chunk)
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.utils import timezone

    call_command("migrate", verbosity=0)
    from accounts.models import Account, Plan
    from accounts.services import account_create
    from config.celery import app
    from messaging.models import Session
    from webhooks.models import Webhook
    from webhooks.registered.replay import webhook_replay

    with app.connection_for_write() as conn:
        for queue in ("webhooks", "celery"):
            with contextlib.suppress(Exception):  # never declared: nothing to purge
                conn.default_channel.queue_purge(queue)

    account = account_create(name=f"bench-{uuid.uuid4().hex[:8]}", plan=Plan.objects.get(name="Empresarial"))
    replayed_session = Session.objects.create(account=account, name="replayed")
    live_session = Session.objects.create(account=account, name="live")
    replayed, live = ReceiverProcess(), ReceiverProcess()
    hook_a = Webhook.objects.create(
        account=account, session=replayed_session, url=replayed.url, events=["message"], secret="bench"
    )
    Webhook.objects.create(
        account=account, session=live_session, url=live.url, events=["message"], secret="b"
    )
    delivered_history(hook_a, count=args.replay)
    worker = start_worker({**os.environ}, args.concurrency)
    db = "PostgreSQL" if "postgres" in os.environ["DATABASE_URL"] else "SQLite"
    broker = "Redis" if os.environ.get("REDIS_URL") else "filesystem"
    try:
        print(
            f"replay priority bench: replay of {args.replay}, {args.live} live events at {args.rate:g}/s per "
            f"phase, worker threads={args.concurrency}, replay chunk={settings.PONTE_WEBHOOK_REPLAY_CHUNK}, "
            f"{db} + {broker} broker"
        )
        live_phase(live, live_session.id, events=20, rate=args.rate)  # warm up
        before_p50, before_p99 = live_phase(live, live_session.id, events=args.live, rate=args.rate)
        print(f"  live webhook, alone          : p50 {before_p50:7.1f} ms  p99 {before_p99:7.1f} ms")
        replayed.stats(reset=True)
        started = time.time()
        queued = webhook_replay(webhook=hook_a, since=timezone.now() - timedelta(hours=2))
        during_p50, during_p99 = live_phase(live, live_session.id, events=args.live, rate=args.rate)
        arrived = replayed.stats()["count"]
        elapsed = time.time() - started
        print(f"  live webhook, during replay  : p50 {during_p50:7.1f} ms  p99 {during_p99:7.1f} ms")
        print(
            f"  replay meanwhile             : {arrived} of {queued} replayed deliveries arrived in "
            f"{elapsed:.1f} s ({arrived / elapsed:.0f}/s)"
        )
        print(f"  ratio live p50 during / before : {during_p50 / before_p50:.2f}  (target <= 2)")
        print(f"  ratio live p99 during / before : {during_p99 / before_p99:.2f}")
    except SystemExit:
        print((tmp / "worker.log").read_text(errors="replace")[-4000:])
        raise
    finally:
        worker.send_signal(signal.SIGQUIT)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        for receiver in (replayed, live):
            receiver.stop()
        Account.objects.filter(pk=account.pk).delete()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
