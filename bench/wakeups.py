"""What waking a worker for one event costs: a Celery message, a Redis list, PostgreSQL NOTIFY (issue 44).

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/wakeups.py \
        [--events 2000] [--rate 150] [--batch 8] [--rounds 2]

PostgreSQL and Redis on 127.0.0.1 only (it refuses anything else). For `--events` wake-ups of each
mechanism it measures the publisher's CPU (this process, `time.process_time` around the publishing loop)
and the consumer's (its process's CPU from /proc, from the first publish until the last wake-up is
counted, so a consumer's idle polling is included), in ms per event and as a multiple of the yardstick of
issue 44 measured in the same round: the client CPU of one request of a raw pooled POST loop
(bench/event_path.py's `raw_post_cpu`). The mechanisms, each consumer in its own process:

1. Celery message: `signature(...).apply_async()` as jobs/hints.py publishes a hint, to Ponte's worker
   (`celery -A config worker --pool threads --concurrency 8`: Ponte's transport, acks_late, prefetch 1)
   running `bench.wake_noop` (bench/wake_consumers.py) from a queue of its own;
2. the same with one hint per `--batch` events (what a hint per batch saves; a wake-up is then K events);
3. Redis list: `RPUSH` of a hint-sized JSON body; the consumer `BLPOP`s, then `LPOP`s what else waits;
4. NOTIFY: `SELECT pg_notify(channel, body)` on an autocommit psycopg connection; the consumer `LISTEN`s;
5. INSERT + NOTIFY: the notification in the transaction of an INSERT into a table of the run (as an outbox
   row would carry it), next to the same transaction without it (publisher only): the difference of the
   two is what the notification adds to a transaction that commits anyway;
6. the pacing loop alone (nothing published): what sleeping until each event's time costs the publisher,
   part of every paced publisher figure (a publisher woken per event, as a web process is per request).

Each consumer counts what it took with one Redis INCR per wake-up (a task, a BLPOP, a read of the
notifications that arrived together): one round trip each pays alike, the bench waits on the count.

Each mechanism runs twice: a burst (all events published at once) and paced at `--rate` events/s (the
consumer then wakes for about every event, as in production). Printed per round (the machine is shared and
noisy): mechanism, mode, publisher and consumer ms per event and x raw POST, the servers' CPU per event
(redis-server, whole, shared with other users of it, plus the two PostgreSQL backends), and events/s
consumed in the burst (bounded by the publisher too: it shares the cores). /proc counts CPU in clock
ticks (10 ms): over 2,000 events a consumer or server figure moves in steps of 0.005 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from delivery_instruments import ReceiverProcess, cpu_seconds, redis_server_pid
from event_path import raw_post_cpu
from serving import ROOT, bench_environment, start_worker

GROUP = str(uuid.uuid4())  # what a hint carries: a queue's group
BODY = json.dumps({"task": "webhooks.deliver", "args": [GROUP]})  # the list's and NOTIFY's hint
WARM = 50  # messages each mechanism consumes before anything is measured (imports, connections, plans)


@dataclass
class Mechanism:
    name: str
    publish: Callable[[], None]
    consumer: int | None  # the consumer's pid; None: a publisher alone (a baseline)
    per_message: int = 1  # events one message wakes the consumer for


@dataclass
class Phase:
    publisher: float  # CPU ms per event
    consumer: float | None
    servers: float
    rate: float | None  # events/s consumed, bursts only


def required_urls() -> tuple[str, str]:
    """DATABASE_URL (PostgreSQL) and REDIS_URL, both on this machine, or a SystemExit saying why not."""
    database, broker = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if not database.startswith(("postgres://", "postgresql://")):
        raise SystemExit(
            "bench/wakeups.py needs PostgreSQL: DATABASE_URL=postgres://... (NOTIFY is measured)"
        )
    if not broker.startswith("redis://"):
        raise SystemExit("bench/wakeups.py needs Redis: REDIS_URL=redis://... (the broker and the list)")
    for url in (database, broker):
        if urlsplit(url).hostname not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit(f"bench/wakeups.py stays on this machine: {urlsplit(url).hostname} is not local")
    return database, broker


def start_consumer(kind: str, name: str, env: dict[str, str], stack: ExitStack) -> tuple[int, int]:
    """bench/wake_consumers.py `kind` on `name`, stopped with `stack`, once it listens: its pid and its
    PostgreSQL backend's (0 for none)."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "wake_consumers.py"), kind, name],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    stack.callback(stop, process)
    line = process.stdout.readline().split()
    if not line or line[0] != "ready":
        raise SystemExit(f"the {kind} consumer did not start")
    return process.pid, int(line[1])


def stop(process: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    process.send_signal(sig)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def wait_count(count: Callable[[], int], target: int, timeout: float = 300) -> None:
    """Until the consumers' count reaches `target` (polled every 5 ms: a burst's rate is read to that)."""
    deadline = time.monotonic() + timeout
    while count() < target:
        if time.monotonic() > deadline:
            raise SystemExit(f"only {count()} of {target} wake-ups were counted within {timeout:.0f} s")
        time.sleep(0.005)


def measure(
    m: Mechanism, events: int, rate: float | None, count: Callable[[], int], servers: list[int]
) -> Phase:
    """Publish `events` events' messages (at `rate` events/s, or at once) and wait until all are consumed."""
    messages = events // m.per_message
    events = messages * m.per_message
    target = count() + messages
    consumer = cpu_seconds(m.consumer) if m.consumer else 0.0
    server = sum(cpu_seconds(pid) for pid in servers)
    started, cpu = time.time(), time.process_time()
    for index in range(messages):
        if rate:  # sleeping is no CPU: process_time counts the publishing alone
            delay = started + index * m.per_message / rate - time.time()
            if delay > 0:
                time.sleep(delay)
        m.publish()
    publisher = time.process_time() - cpu
    if m.consumer:
        wait_count(count, target)
    elapsed = time.time() - started
    per_event = 1000 / events
    return Phase(
        publisher=publisher * per_event,
        consumer=(cpu_seconds(m.consumer) - consumer) * per_event if m.consumer else None,
        servers=(sum(cpu_seconds(pid) for pid in servers) - server) * per_event,
        rate=events / elapsed if m.consumer and not rate else None,
    )


def celery_publisher(queue: str) -> Callable[[], None]:
    """A hint exactly as jobs/hints.py publishes one: a signature by name, routed by the app's settings."""
    from celery import signature

    from config import celery_app

    celery_app.conf.task_routes = {**celery_app.conf.task_routes, "bench.wake_noop": {"queue": queue}}

    def publish() -> None:
        signature("bench.wake_noop", args=[GROUP]).apply_async(countdown=None)

    return publish


def transaction_publisher(conn, table: str, channel: str | None) -> Callable[[], None]:
    """One row INSERTed in its own transaction, with NOTIFY `channel` in it unless None."""
    from psycopg import sql

    insert = sql.SQL("INSERT INTO {} (body) VALUES (%s)").format(sql.Identifier(table)).as_string(conn)

    def publish() -> None:
        with conn.transaction():
            conn.execute(insert, (BODY,))
            if channel:
                conn.execute("SELECT pg_notify(%s, %s)", (channel, BODY))

    return publish


def mechanisms(stack: ExitStack, client, conn, run: str, batch: int) -> tuple[list[Mechanism], int]:
    """Every mechanism with its consumer started (stopped with `stack`), and the listener's PostgreSQL
    backend; the queue, list key, channel and table are the run's own."""
    env = {**os.environ, "BENCH_WAKE_COUNTER": f"bench:wake:{run}:count"}
    worker = start_worker(env, 8, queues=f"bench-wake-{run}", include="bench.wake_consumers")
    stack.callback(stop, worker, signal.SIGQUIT)  # as event_path.py stops it: nothing is left running
    listing, _ = start_consumer("list", f"bench:wake:{run}:list", env, stack)
    channel, table = f"bench_wake_{run}", f"bench_wake_{run}"
    listening, backend = start_consumer("notify", channel, env, stack)
    celery, key = celery_publisher(f"bench-wake-{run}"), f"bench:wake:{run}:list"
    return [
        Mechanism("Celery message", celery, worker.pid),
        Mechanism(f"Celery, 1 hint / {batch} events", celery, worker.pid, per_message=batch),
        Mechanism("Redis list", lambda: client.rpush(key, BODY), listing),
        Mechanism("NOTIFY (autocommit)", lambda: conn.execute("SELECT pg_notify(%s, %s)", (channel, BODY)),
                  listening),
        Mechanism("INSERT txn + NOTIFY", transaction_publisher(conn, table, channel), listening),
        Mechanism("INSERT txn alone", transaction_publisher(conn, table, None), None),
        Mechanism("pacing loop alone", lambda: None, None),
    ], backend  # fmt: skip


def print_round(number: int, raw: float, results: dict[tuple[str, str], Phase]) -> None:
    print(f"round {number}: raw POST, client CPU {raw:.3f} ms per request (the yardstick)")
    print(
        f"  {'mechanism':<27} {'mode':<6} {'publisher ms':>12} {'x raw':>6} {'consumer ms':>11} "
        f"{'x raw':>6} {'servers ms':>10} {'events/s':>9}"
    )
    for (name, mode), p in results.items():
        consumer = f"{p.consumer:11.3f} {p.consumer / raw:6.2f}" if p.consumer is not None else f"{'—':>18}"
        rate = f"{p.rate:9.0f}" if p.rate else f"{'—':>9}"
        print(
            f"  {name:<27} {mode:<6} {p.publisher:12.3f} {p.publisher / raw:6.2f} {consumer} "
            f"{p.servers:10.3f} {rate}"
        )
    sys.stdout.flush()


def run_rounds(args, ms: list[Mechanism], count: Callable[[], int], servers: list[int]) -> None:
    receiver = ReceiverProcess()
    try:
        for m in ms:  # warm: the worker's start, imports, connections, psycopg's prepared statements
            measure(m, WARM * m.per_message, None, count, servers)
        for number in range(1, args.rounds + 1):
            raw = raw_post_cpu(receiver, requests=args.events)
            order = ms if number % 2 else ms[::-1]  # taking turns: a round's drift falls on other rows
            results = {}
            for m in order:
                for mode, rate in (("burst", None), ("paced", args.rate)):
                    results[(m.name, mode)] = measure(m, args.events, rate, count, servers)
            print_round(number, raw, {key: results[key] for m in ms for key in results if key[0] == m.name})
    finally:
        receiver.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=2000, help="wake-ups per mechanism and mode")
    parser.add_argument("--rate", type=float, default=150, help="events/s of the paced mode")
    parser.add_argument("--batch", type=int, default=8, help="events per hint in the batched Celery row")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    database, broker = required_urls()
    tmp = Path(tempfile.mkdtemp(prefix="ponte-wake-"))
    bench_environment(tmp)
    import django
    import psycopg
    import redis
    from psycopg import sql

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)  # Ponte's worker sweeps its job tables when it starts
    run = uuid.uuid4().hex[:8]
    client = redis.Redis.from_url(broker)
    keys_before = set(client.keys("*"))
    conn = psycopg.connect(database, autocommit=True)
    table = sql.Identifier(f"bench_wake_{run}")
    conn.execute(sql.SQL("CREATE TABLE {} (id bigserial PRIMARY KEY, body text)").format(table))
    try:
        with ExitStack() as stack:
            ms, listener = mechanisms(stack, client, conn, run, args.batch)
            servers = [pid for pid in (redis_server_pid(), conn.info.backend_pid, listener) if pid]
            print(
                f"wake-ups bench: {args.events} events per mechanism and mode, paced at {args.rate:g}/s, "
                f"{args.rounds} rounds, PostgreSQL + Redis, {os.cpu_count()} cores"
            )
            run_rounds(args, ms, lambda: int(client.get(f"bench:wake:{run}:count") or 0), servers)
    except SystemExit:
        print((tmp / "worker.log").read_text(errors="replace")[-3000:])
        raise
    finally:
        conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(table))
        conn.close()
        new = set(client.keys("*")) - keys_before  # the run's queue, bindings, list and count
        if new:
            client.delete(*new)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
