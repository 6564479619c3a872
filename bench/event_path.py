"""The event path end to end: an event entering through the HTTP API until a receiver has it.

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/event_path.py [--events 600]

One run, on what the environment points at (PostgreSQL + Redis is what it is meant for; without them a
throw-away SQLite file and the filesystem broker). It starts a local receiver, Ponte's web process
(uvicorn, as the Procfile runs it, rate limits on) and a worker (threads pool), then prints:

1. the raw pooled POST loop to the receiver (the yardstick);
2. `POST /api/messages/send` on a connected sandbox session whose webhook posts to the receiver, from
   `--clients` keep-alive connections: requests/s at the API, events/s at the receiver, p50/p99 from
   the send to the receipt, and the CPU of Ponte's processes (web + worker) per event;
3. `GET /api/me` requests/s in the same web process, and the ratio send / me;
4. the sandbox's inbound route (`POST /api/sandbox/sessions/<id>/inbound`) → receipt, vs the raw loop;
5. sends one after another at half the rate of step 2: p99 vs the raw loop's p99;
6. SQL statements per send and per inbound event, counted in this process (Django's test client,
   CaptureQueriesContext) on the same database, with BEGIN and COMMIT (the request's transaction).

Targets (issue 29): CPU <= 3 ms per event; send >= 0.5 x me; inbound >= 0.4 x raw; statements <= 8 per
send and <= 5 per inbound event; p99 at half load <= 5 x raw.

Issue 44's yardstick, measured in the same run: the client-side CPU of one request of a raw pooled POST
loop (this process, one thread, one `requests.Session` with keep-alive, a prebuilt JSON body, against the
same local receiver; `time.process_time`). Ponte's CPU per event (web + worker) is printed as a ratio of
it, for a send and for a sandbox inbound event (target <= 5), and the worker's share alone (target <= 2).
"""

from __future__ import annotations

import argparse
import http.client
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
from delivery_instruments import (  # noqa: E402
    ReceiverProcess,
    cpu_seconds,
    percentile,
    raw_loop,
    wait_count,
)
from serving import bench_environment, start_web, start_worker  # noqa: E402

CUSTOMER = "5511988887777"


def _post(conn: http.client.HTTPConnection, path: str, body: dict, key: str) -> tuple[int, bytes]:
    conn.request(
        "POST", path, body=json.dumps(body), headers={"X-API-Key": key, "Content-Type": "application/json"}
    )
    reply = conn.getresponse()
    return reply.status, reply.read()


def pair(port: int, session_id: str, key: str) -> None:
    """Connect the session and scan its QR code with the sandbox's phone, as a customer would."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for path, body in (
        (f"/api/sessions/{session_id}/connect", {}),
        (f"/api/sandbox/sessions/{session_id}/scan", {"phone": "5511999990001"}),
    ):
        status, text = _post(conn, path, body, key)
        if status != 200:
            raise SystemExit(f"{path} answered {status}: {text[:300]!r}")
    conn.close()


def hammer(port: int, key: str, *, requests: int, clients: int, call) -> float:
    """`requests` calls of `call(conn, index)` (which checks its own answer) from `clients` keep-alive
    connections: requests/s."""

    def share(offset: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for index in range(offset, requests, clients):
            call(conn, index)
        conn.close()

    started = time.time()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(share, range(clients)))
    return requests / (time.time() - started)


def sender(session_id: str, key: str):
    def send(conn: http.client.HTTPConnection, index: int) -> None:
        body = {"sessionId": session_id, "to": CUSTOMER, "text": f"t={time.time()} #{index}"}
        status, text = _post(conn, "/api/messages/send", body, key)
        if status != 200:
            raise SystemExit(f"send answered {status}: {text[:300]!r}")

    return send


def inbound(session_id: str, key: str):
    def receive(conn: http.client.HTTPConnection, index: int) -> None:
        body = {"event": "message", "from": CUSTOMER, "text": f"t={time.time()} #{index}"}
        status, text = _post(conn, f"/api/sandbox/sessions/{session_id}/inbound", body, key)
        if status != 201:
            raise SystemExit(f"inbound answered {status}: {text[:300]!r}")

    return receive


def me(key: str):
    def call(conn: http.client.HTTPConnection, index: int) -> None:
        conn.request("GET", "/api/me", headers={"X-API-Key": key})
        reply = conn.getresponse()
        reply.read()
        if reply.status != 200:
            raise SystemExit(f"/api/me answered {reply.status}")

    return call


def raw_post_cpu(receiver, *, requests: int) -> float:
    """Client CPU ms per request of a raw pooled POST loop: this process, one thread, one keep-alive
    `requests.Session`, a prebuilt JSON body of an event's size, to `receiver` (the yardstick of issue 44).
    Nothing else runs in this process meanwhile."""
    import requests as http

    body = json.dumps({"event": "message", "session_id": "x", "data": {"text": "t" * 40}, "timestamp": "t"})
    headers = {"Content-Type": "application/json"}
    with http.Session() as session:
        session.post(receiver.url, data=body, headers=headers, timeout=10).close()  # connect outside
        started = time.process_time()
        for _ in range(requests):
            reply = session.post(receiver.url, data=body, headers=headers, timeout=10)
            reply.close()
            if reply.status_code >= 300:
                raise SystemExit(f"the receiver answered {reply.status_code}")
        return (time.process_time() - started) / requests * 1000


def print_yardstick(label: str, result: dict, web: int, worker: int, raw_cpu: float) -> None:
    """Ponte's CPU per event, web + worker, as a ratio of the raw loop's CPU per request."""
    total = result["cpu"][web] + result["cpu"][worker]
    print(
        f"    {label:<7} Ponte CPU per event {total:6.2f} ms = {total / raw_cpu:5.1f} x raw POST"
        " (target <= 5); "
        f"web {result['cpu'][web]:.2f} ms, worker {result['cpu'][worker]:.2f} ms = "
        f"{result['cpu'][worker] / raw_cpu:4.1f} x raw POST (target <= 2)"
    )


def end_to_end(receiver, port, key, call, *, events: int, clients: int, pids: list[int]) -> dict:
    """`events` calls that each produce one delivery: API req/s, events/s at the receiver, p50, p99,
    and CPU ms per event of each pid."""
    receiver.stats(reset=True)
    before = {pid: cpu_seconds(pid) for pid in pids}
    started = time.time()
    api_rate = hammer(port, key, requests=events, clients=clients, call=call)
    stats = wait_count(receiver, events)
    cpu = {pid: (cpu_seconds(pid) - before[pid]) / events * 1000 for pid in pids}
    return {
        "api": api_rate,
        "rate": events / (stats["last"] - started),
        "p50": percentile(stats["latencies"], 50),
        "p99": percentile(stats["latencies"], 99),
        "cpu": cpu,
    }


def paced(receiver, port, key, call, *, events: int, rate: float) -> tuple[float, float]:
    """One call after another at `rate` per second: p50, p99 (ms) from the call to the receipt."""
    receiver.stats(reset=True)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    started = time.time()
    for index in range(events):
        delay = started + index / rate - time.time()
        if delay > 0:
            time.sleep(delay)
        call(conn, index)
    conn.close()
    stats = wait_count(receiver, events)
    return percentile(stats["latencies"], 50), percentile(stats["latencies"], 99)


def statements(session_id: str, key: str) -> tuple[list[str], list[str]]:
    """The SQL of one send and of one inbound event, as the web process runs them (its own transaction,
    BEGIN and COMMIT included), after a first call of each has warmed the key and the caches."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_X_API_KEY=key)
    send = {"sessionId": session_id, "to": CUSTOMER, "text": "counted"}
    received = {"event": "message", "from": CUSTOMER, "text": "counted"}
    counted = []
    for path, body, status in (
        ("/api/messages/send", send, 200),
        (f"/api/sandbox/sessions/{session_id}/inbound", received, 201),
    ):
        client.post(path, body, content_type="application/json")
        with CaptureQueriesContext(connection) as captured:
            reply = client.post(path, body, content_type="application/json")
        if reply.status_code != status:
            raise SystemExit(f"{path} answered {reply.status_code}: {reply.content[:300]!r}")
        counted.append([query["sql"] for query in captured.captured_queries])
    return counted[0], counted[1]


def setup_environment(tmp: Path) -> None:
    bench_environment(tmp)
    # Rate limits stay on (their Redis counting is part of every keyed request), high enough not to refuse.
    os.environ["PONTE_UNLIMITED_REQUESTS_PER_MINUTE"] = "100000000"


def print_statements(label: str, sql: list[str], verbose: bool) -> None:
    kinds = [s.split()[0].upper() for s in sql]
    print(f"  statements per {label:<8}: {len(sql):3d}  {' '.join(kinds)}")
    if verbose:
        for one in sql:
            print(f"      {one[:160]}")


def prepared(prefix: str, names: tuple[str, ...]) -> tuple[Path, str, ReceiverProcess, dict[str, Any]]:
    """A bench's world: its var dir, Django set up and migrated, an account on the top plan with an admin
    key, a local receiver, and a session per name whose webhook posts there (not yet paired)."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    setup_environment(tmp)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from accounts.models import Plan
    from accounts.services import account_create, api_key_create
    from messaging.models import Session
    from webhooks.models import Webhook

    account = account_create(name=f"bench-{uuid.uuid4().hex[:8]}", plan=Plan.objects.get(name="Empresarial"))
    key = api_key_create(account=account, role="admin")[1]
    receiver = ReceiverProcess()
    sessions = {name: Session.objects.create(account=account, name=name) for name in names}
    for session in sessions.values():
        Webhook.objects.create(account=account, session=session, url=receiver.url, events=["message"])
    return tmp, key, receiver, sessions


def discard(tmp: Path, sessions: dict[str, Any]) -> None:
    """What `prepared` made: the account (its sessions, key and webhooks with it) and the var dir."""
    from accounts.models import Account

    Account.objects.filter(pk=next(iter(sessions.values())).account_id).delete()
    shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=600)
    parser.add_argument("--clients", type=int, default=4, help="keep-alive API connections")
    parser.add_argument("--concurrency", type=int, default=8, help="worker threads")
    parser.add_argument("--sql", action="store_true", help="print each counted statement")
    args = parser.parse_args()
    tmp, key, receiver, sessions = prepared("ponte-bench-", ("api", "count"))
    worker = start_worker({**os.environ}, args.concurrency)
    web, port = start_web({**os.environ}, log=open(tmp / "web.log", "wb"))  # noqa: SIM115
    db = "PostgreSQL" if "postgres" in os.environ["DATABASE_URL"] else "SQLite"
    broker = "Redis" if os.environ.get("REDIS_URL") else "filesystem"
    try:
        print(f"event path bench: {args.events} events, {args.clients} API clients, {db} + {broker}")
        for session in sessions.values():
            pair(port, str(session.pk), key)
        sid = str(sessions["api"].pk)
        send, receive, whoami = sender(sid, key), inbound(sid, key), me(key)
        pids = [web.pid, worker.pid]
        end_to_end(receiver, port, key, send, events=40, clients=args.clients, pids=pids)  # warm up
        raw_rate, raw_p50, raw_p99 = raw_loop(receiver, events=args.events, threads=args.clients)
        print(
            f"  raw pooled POST loop : {raw_rate:8.1f} req/s    p50 {raw_p50:6.1f} ms  p99 {raw_p99:6.1f} ms"
        )
        raw_cpu = raw_post_cpu(receiver, requests=args.events)
        print(
            f"  raw POST, client CPU : {raw_cpu:.3f} ms per request (one thread, keep-alive: the yardstick)"
        )
        sent = end_to_end(receiver, port, key, send, events=args.events, clients=args.clients, pids=pids)
        cpu = sum(sent["cpu"].values())
        print(
            f"  send → receipt       : {sent['rate']:8.1f} events/s   p50 {sent['p50']:6.1f} ms  "
            f"p99 {sent['p99']:6.1f} ms  (API {sent['api']:.1f} req/s)"
        )
        print(
            f"    Ponte CPU per event: {cpu:.2f} ms (web {sent['cpu'][web.pid]:.2f}, worker "
            f"{sent['cpu'][worker.pid]:.2f})  target <= 3"
        )
        print_yardstick("send", sent, web.pid, worker.pid, raw_cpu)
        me_rate = hammer(port, key, requests=args.events, clients=args.clients, call=whoami)
        print(f"  GET /api/me          : {me_rate:8.1f} req/s")
        print(f"  ratio send / me      : {sent['api'] / me_rate:.2f}  (target >= 0.5)")
        # Measured again next to the inbound phase: on a shared machine the yardstick moves with the load.
        raw_cpu = raw_post_cpu(receiver, requests=args.events)
        print(f"  raw POST, client CPU : {raw_cpu:.3f} ms per request (again, for the inbound phase)")
        got = end_to_end(receiver, port, key, receive, events=args.events, clients=args.clients, pids=pids)
        print(
            f"  inbound → receipt    : {got['rate']:8.1f} events/s   p50 {got['p50']:6.1f} ms  "
            f"p99 {got['p99']:6.1f} ms  (API {got['api']:.1f} req/s; Ponte CPU "
            f"{sum(got['cpu'].values()):.2f} ms per event)"
        )
        print_yardstick("inbound", got, web.pid, worker.pid, raw_cpu)
        print(f"  ratio inbound / raw  : {got['rate'] / raw_rate:.2f}  (target >= 0.4)")
        half_p50, half_p99 = paced(receiver, port, key, send, events=args.events // 2, rate=sent["rate"] / 2)
        print(
            f"  sends at half rate   : p50 {half_p50:6.1f} ms  p99 {half_p99:6.1f} ms"
            f"  (p99 / raw p99 {half_p99 / raw_p99:.1f}x, target <= 5)"
        )
        one_send, one_inbound = statements(str(sessions["count"].pk), key)
        print_statements("send", one_send, args.sql)
        print_statements("inbound", one_inbound, args.sql)
        print("  (a shared, noisy machine: compare runs made one after another, not across days)")
    except SystemExit:
        print((tmp / "worker.log").read_text(errors="replace")[-3000:])
        print((tmp / "web.log").read_text(errors="replace")[-3000:])
        raise
    finally:
        web.terminate()
        web.wait(timeout=10)
        worker.send_signal(signal.SIGQUIT)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        receiver.stop()
        discard(tmp, sessions)


if __name__ == "__main__":
    main()
