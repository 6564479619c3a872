"""Webhook delivery benchmark: Ponte's outbox end to end against a raw pooled POST loop.

    .venv/bin/python bench/webhooks.py [--events 600] [--concurrency 8]

Runs on what the environment points at: DATABASE_URL and REDIS_URL (PostgreSQL + Redis), or, without
them, a throw-away SQLite file and the filesystem broker in a temporary folder. It starts its own local
receivers (asyncio keep-alive HTTP servers, separate processes) and its own Celery worker (threads pool).

1. Raw: a pooled `requests.Session` POST loop (same threads, same body and headers) to a receiver.
2. Ponte: `emit()` N events on a session with a registered webhook; the worker claims, signs, POSTs and
   records each. Events/s = N / (last receipt - first emit); latency = receipt - emit, per event.
3. Isolation: the same run while a second session's webhook points at a receiver that never answers
   (every POST hangs until the 10 s timeout); healthy throughput as a ratio to step 2.

Prints the figures and the ratios (targets: throughput >= 0.5 of raw; >= 0.9 with a hanging receiver).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The receiver, CPU accounting, percentiles and the raw loop (bench/ is this script's sys.path[0]).
from delivery_instruments import (  # noqa: E402
    OwnCpu,
    ReceiverProcess,
    close_connection_counted,
    cpu_seconds,
    data_of,
    machine_cpu_seconds,
    percentile,
    raw_loop,
    redis_server_pid,
    wait_count,
)
from serving import bench_environment, start_web, start_worker  # noqa: E402


def emit_and_measure(
    healthy: ReceiverProcess, session_id, *, events: int, emitters: int, other_session_id=None
) -> tuple[float, float, float]:
    """Emit `events` on the measured session (and as many on another one, interleaved) from
    `emitters` threads, as web and engine processes would: events/s, p50, p99 (ms) at the measured
    session's receiver."""

    from webhooks.services import emit

    def emit_share(offset: int) -> None:
        try:
            for index in range(offset, events, emitters):
                emit(session_id=session_id, name="message", data=data_of(index), chat=f"bench-{offset}")
                if other_session_id is not None:
                    emit(session_id=other_session_id, name="message", data=data_of(index), chat="bench")
        finally:
            close_connection_counted()

    healthy.stats(reset=True)
    started = time.time()
    with ThreadPoolExecutor(emitters) as pool:
        list(pool.map(emit_share, range(emitters)))
    stats = wait_count(healthy, events)
    rate = events / (stats["last"] - started)
    return rate, percentile(stats["latencies"], 50), percentile(stats["latencies"], 99)


def paced(healthy: ReceiverProcess, session_id, *, events: int, rate: float) -> tuple[float, float, float]:
    """Emit `events` one after another at `rate` per second (one thread, as steady traffic arrives):
    achieved events/s, p50, p99 (ms)."""
    from django.db import connection

    from webhooks.services import emit

    healthy.stats(reset=True)
    started = time.time()
    try:
        for index in range(events):
            delay = started + index / rate - time.time()
            if delay > 0:
                time.sleep(delay)
            emit(session_id=session_id, name="message", data=data_of(index), chat="paced")
    finally:
        connection.close()
    stats = wait_count(healthy, events)
    return (
        events / (stats["last"] - started),
        percentile(stats["latencies"], 50),
        percentile(stats["latencies"], 99),
    )


def idle_receipts(healthy: ReceiverProcess, session_id, *, events: int, pause: float) -> list[float]:
    """One event at a time on an idle system, `pause` s apart: each one's emit → receipt (ms)."""
    from django.db import connection

    from webhooks.services import emit

    latencies: list[float] = []
    try:
        for index in range(events):
            healthy.stats(reset=True)
            time.sleep(pause)
            emit(session_id=session_id, name="message", data=data_of(index), chat="idle")
            latencies.extend(wait_count(healthy, 1, timeout=30)["latencies"])
    finally:
        connection.close()
    return latencies


def pair_sandbox(port: int, session_id, key: str) -> None:
    """Connect the session and scan its QR code with the sandbox's phone, as a customer would."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"X-API-Key": key, "Content-Type": "application/json"}
    for path, body in (
        (f"/api/sessions/{session_id}/connect", "{}"),
        (f"/api/sandbox/sessions/{session_id}/scan", json.dumps({"phone": "5511999990001"})),
    ):
        conn.request("POST", path, body=body, headers=headers)
        reply = conn.getresponse()
        text = reply.read()
        if reply.status != 200:
            raise SystemExit(f"{path} answered {reply.status}: {text[:300]!r}")
    conn.close()


def through_http(
    healthy: ReceiverProcess, port: int, session_id, key: str, *, events: int, clients: int
) -> tuple[float, float, float, float]:
    """Inbound messages through the sandbox route (POST /api/sandbox/sessions/<id>/inbound) from
    `clients` keep-alive connections: (requests/s at the API, events/s end to end, p50, p99 ms)."""
    import http.client

    healthy.stats(reset=True)
    path = f"/api/sandbox/sessions/{session_id}/inbound"
    headers = {"X-API-Key": key, "Content-Type": "application/json"}

    def post_share(offset: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for index in range(offset, events, clients):
            body = json.dumps(
                {"event": "message", "from": "5511988887777", "text": f"t={time.time()} #{index}"}
            )
            conn.request("POST", path, body=body, headers=headers)
            reply = conn.getresponse()
            reply.read()
            if reply.status != 201:
                raise SystemExit(f"inbound answered {reply.status}")
        conn.close()

    started = time.time()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(post_share, range(clients)))
    api_rate = events / (time.time() - started)
    stats = wait_count(healthy, events)
    rate = events / (stats["last"] - started)
    return api_rate, rate, percentile(stats["latencies"], 50), percentile(stats["latencies"], 99)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=600)
    parser.add_argument("--concurrency", type=int, default=8, help="worker threads")
    parser.add_argument("--emitters", type=int, default=4, help="threads calling emit()")
    parser.add_argument(
        "--skip",
        default="",
        help="phases to skip, comma-separated: paced,idle,http,hang (two receivers, then one hanging)",
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ponte-bench-"))
    bench_environment(tmp)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from accounts.models import Account, Plan
    from accounts.services import account_create, api_key_create
    from config.celery import app
    from messaging.models import Session
    from webhooks.models import Webhook

    with app.connection_for_write() as conn:
        for queue in ("webhooks", "celery"):
            with contextlib.suppress(Exception):  # never declared: nothing to purge
                conn.default_channel.queue_purge(queue)

    account = account_create(name=f"bench-{uuid.uuid4().hex[:8]}", plan=Plan.objects.get(name="Empresarial"))
    healthy_session = Session.objects.create(account=account, name="healthy")
    second_session = Session.objects.create(account=account, name="second")
    hanging_session = Session.objects.create(account=account, name="hanging")
    # Through the HTTP API: a sandbox session, connected, whose webhook posts to the healthy receiver.
    inbound_session = Session.objects.create(account=account, name="inbound")
    healthy, second, hanging = ReceiverProcess(), ReceiverProcess(), ReceiverProcess(hang=True)
    pairs = (
        (healthy_session, healthy),
        (second_session, second),
        (hanging_session, hanging),
        (inbound_session, healthy),
    )
    for session, receiver in pairs:
        Webhook.objects.create(
            account=account, session=session, url=receiver.url, events=["message"], secret="bench"
        )
    worker = start_worker({**os.environ}, args.concurrency)
    db = "PostgreSQL" if "postgres" in os.environ["DATABASE_URL"] else "SQLite"
    broker = "Redis" if os.environ.get("REDIS_URL") else "filesystem"
    try:
        print(
            f"webhooks bench: {args.events} events, worker threads={args.concurrency}, "
            f"emitter threads={args.emitters}, {db} + {broker} broker"
        )
        # Warm up the worker and the connection pools.
        emit_and_measure(healthy, healthy_session.id, events=20, emitters=args.emitters)
        raw_own = OwnCpu([os.getpid(), healthy.process.pid]).__enter__()
        raw_cpu, raw_machine = cpu_seconds(os.getpid()), machine_cpu_seconds()
        raw_rate, raw_p50, raw_p99 = raw_loop(healthy, events=args.events, threads=args.concurrency)
        raw_cpu = (cpu_seconds(os.getpid()) - raw_cpu) / args.events * 1000
        raw_machine = (machine_cpu_seconds() - raw_machine) / args.events * 1000
        raw_own_ms = raw_own.seconds() / args.events * 1000
        print(
            f"  raw pooled POST loop : {raw_rate:8.1f} req/s    p50 {raw_p50:7.1f} ms  p99 {raw_p99:7.1f} ms"
        )
        print(
            f"    CPU per request    : {raw_cpu:.2f} ms, with the receiver {raw_own_ms:.2f} ms "
            f"(machine {raw_machine:.2f} ms: {raw_machine * raw_rate / 1000:.2f} of {os.cpu_count()} cores"
            " busy)"
        )
        own_pids = [os.getpid(), worker.pid, healthy.process.pid, second.process.pid, hanging.process.pid]
        redis_pid = redis_server_pid()
        redis_own = OwnCpu([redis_pid] if redis_pid else [], database=False).__enter__()
        own = OwnCpu(own_pids).__enter__()
        cpu_before = cpu_seconds(os.getpid()), cpu_seconds(worker.pid), machine_cpu_seconds()
        rate, p50, p99 = emit_and_measure(
            healthy, healthy_session.id, events=args.events, emitters=args.emitters
        )
        emit_cpu = (cpu_seconds(os.getpid()) - cpu_before[0]) / args.events * 1000
        worker_cpu = (cpu_seconds(worker.pid) - cpu_before[1]) / args.events * 1000
        machine_cpu = (machine_cpu_seconds() - cpu_before[2]) / args.events * 1000
        own_cpu = own.seconds() / args.events * 1000
        redis_ms = redis_own.seconds() / args.events * 1000
        print(f"  Ponte end to end     : {rate:8.1f} events/s p50 {p50:7.1f} ms  p99 {p99:7.1f} ms")
        print(
            f"    CPU per event      : emitting {emit_cpu:.2f} ms, worker {worker_cpu:.2f} ms; "
            f"all Ponte's processes, receiver and database {own_cpu:.2f} ms (target <= 2); "
            f"machine {machine_cpu:.2f} ms ({machine_cpu * rate / 1000:.2f} of {os.cpu_count()} cores busy)"
        )
        if redis_pid:  # shared with whatever else uses that server, so kept out of the sum above
            print(f"    Redis server       : {redis_ms:.2f} ms per event (broker, hint flags, live events)")
        skip = set(args.skip.split(","))
        if "paced" not in skip:
            half_rate, half_p50, half_p99 = paced(
                healthy, healthy_session.id, events=args.events // 2, rate=rate / 2
            )
            print(
                f"  at half that rate    : {half_rate:8.1f} events/s p50 {half_p50:7.1f} ms"
                f"  p99 {half_p99:7.1f} ms"
                f"  (p99 / raw p99 {half_p99 / raw_p99:.1f}x, target <= 5)"
            )
        if "idle" not in skip:
            idle = idle_receipts(healthy, healthy_session.id, events=20, pause=0.3)
            print(
                f"  idle, one event      : receipt p50 {percentile(idle, 50):5.1f} ms,"
                f" max {max(idle):5.1f} ms"
                " (target <= 50 ms)"
            )
        if "http" not in skip:
            log = open(tmp / "web.log", "wb")  # noqa: SIM115 (kept open for the server)
            web, port = start_web({**os.environ, "RATELIMIT_ENABLE": "0"}, log=log)
            try:
                key = api_key_create(account=account, role="admin")[1]
                pair_sandbox(port, inbound_session.id, key)
                through_http(healthy, port, inbound_session.id, key, events=40, clients=args.emitters)  # warm
                own = OwnCpu([*own_pids, web.pid]).__enter__()
                web_cpu = cpu_seconds(web.pid), cpu_seconds(worker.pid), machine_cpu_seconds()
                api_rate, http_rate, http_p50, http_p99 = through_http(
                    healthy, port, inbound_session.id, key, events=args.events, clients=args.emitters
                )
                web_ms = (cpu_seconds(web.pid) - web_cpu[0]) / args.events * 1000
                http_worker_ms = (cpu_seconds(worker.pid) - web_cpu[1]) / args.events * 1000
                http_machine = (machine_cpu_seconds() - web_cpu[2]) / args.events * 1000
                http_own = own.seconds() / args.events * 1000
            finally:
                web.terminate()
                web.wait(timeout=10)
            print(
                f"  through the HTTP API : {http_rate:8.1f} events/s p50 {http_p50:7.1f} ms"
                f"  p99 {http_p99:7.1f} ms"
                f"  (API {api_rate:.1f} req/s, {args.emitters} clients)"
            )
            print(
                f"    CPU per event      : web {web_ms:.2f} ms, worker {http_worker_ms:.2f} ms; "
                f"all processes {http_own:.2f} ms; machine {http_machine:.2f} ms"
                f" ({http_machine * http_rate / 1000:.2f} of {os.cpu_count()} cores busy)"
            )
            print(f"  ratio HTTP API end to end / raw        : {http_rate / raw_rate:.2f}  (target >= 0.5)")
        print(f"  ratio throughput Ponte / raw             : {rate / raw_rate:.2f}  (target >= 0.5)")
        if not {"two", "hang"} & skip:  # isolation: a second receiver, healthy, then hanging
            rates = {}
            for label, other in (
                ("two healthy receivers", second_session),
                ("healthy + hanging   ", hanging_session),
            ):
                rates[label], other_p50, other_p99 = emit_and_measure(
                    healthy, healthy_session.id, events=args.events, emitters=args.emitters,
                    other_session_id=other.id,
                )  # fmt: skip
                print(
                    f"  {label}: {rates[label]:8.1f} events/s (healthy one) "
                    f"p50 {other_p50:7.1f} ms  p99 {other_p99:7.1f} ms"
                )
            isolation = rates["healthy + hanging   "] / rates["two healthy receivers"]
            print(f"  ratio healthy throughput, hang / no hang : {isolation:.2f}  (target >= 0.9)")
        print(f"  latency p50 Ponte / raw                 : {p50 / raw_p50:.1f}x")
    except SystemExit:
        print((tmp / "worker.log").read_text(errors="replace")[-4000:])
        raise
    finally:
        worker.send_signal(signal.SIGQUIT)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        for receiver in (healthy, second, hanging):
            receiver.stop()
        if os.environ.get("BENCH_KEEP"):  # the run's rows and files, for a look at claims and attempts
            print(f"kept {tmp} and account {account.name}")
        else:
            Account.objects.filter(pk=account.pk).delete()
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
