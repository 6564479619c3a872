"""Issue 44 item 5: does Ponte scale out? 2 web + 2 worker processes against 1 + 1, on the same
PostgreSQL + Redis, in one run: events sent through `POST /api/messages/send` (spread over the web
processes and over a few sandbox sessions) until a local receiver has every delivery.

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/scale_out.py \\
        [--events 600] [--clients 8] [--concurrency 8] [--rounds 2]

Each round runs 1 + 1, then 2 + 2 (web processes stay up; workers are started for their phase and
stopped after it, so an idle one takes no task). A phase is warmed (its workers have delivered a first
batch) before it is timed, from the first send to the last receipt. It prints events/s and Ponte's CPU
per event (web + worker processes) per phase, and the throughput ratio 2 + 2 ÷ 1 + 1 of each round.
Rate limits are lifted: the bench measures throughput, not the plan.
"""

from __future__ import annotations

import argparse
import http.client
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from delivery_instruments import ReceiverProcess, cpu_seconds, wait_count  # bench/ is sys.path[0]
from event_path import pair, sender, setup_environment
from serving import start_web, start_worker

SESSIONS = 4


def drive(ports: list[int], sids: list[str], key: str, *, events: int, clients: int) -> None:
    """`events` sends from `clients` keep-alive connections, client i on web process i mod len(ports),
    sending on session i mod len(sids)."""

    def share(slot: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", ports[slot % len(ports)], timeout=60)
        send = sender(sids[slot % len(sids)], key)
        for index in range(slot, events, clients):
            send(conn, index)
        conn.close()

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(share, range(clients)))


def stop_worker(worker: subprocess.Popen) -> None:
    worker.send_signal(signal.SIGTERM)  # warm shutdown: finishes what it holds
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


def phase(receiver, webs, sids: list[str], key: str, *, count: int, args) -> tuple[float, float]:
    """`count` web processes and `count` workers: events/s to the receiver and CPU ms per event."""
    ports = [port for _, port in webs[:count]]
    workers = [start_worker({**os.environ}, args.concurrency) for _ in range(count)]
    try:
        receiver.stats(reset=True)
        drive(ports, sids, key, events=20 * count, clients=2 * count)  # every worker up and delivering
        wait_count(receiver, 20 * count)
        time.sleep(0.5)
        receiver.stats(reset=True)
        pids = [web.pid for web, _ in webs[:count]] + [worker.pid for worker in workers]
        before = sum(cpu_seconds(pid) for pid in pids)
        started = time.time()
        drive(ports, sids, key, events=args.events, clients=args.clients)
        stats = wait_count(receiver, args.events)
        cpu = (sum(cpu_seconds(pid) for pid in pids) - before) / args.events * 1000
        return args.events / (stats["last"] - started), cpu
    finally:
        for worker in workers:
            stop_worker(worker)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=600)
    parser.add_argument("--clients", type=int, default=8, help="keep-alive API connections in all")
    parser.add_argument("--concurrency", type=int, default=8, help="threads per worker")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ponte-bench-scale-"))
    setup_environment(tmp)
    os.environ["PONTE_UNLIMITED_REQUESTS_PER_MINUTE"] = "1000000000"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from accounts.models import Account, Plan
    from accounts.services import account_create, api_key_create
    from messaging.models import Session
    from webhooks.models import Webhook

    plan = Plan.objects.get(name="Empresarial")
    account = account_create(name=f"bench-scale-{uuid.uuid4().hex[:8]}", plan=plan)
    key = api_key_create(account=account, role="admin")[1]
    receiver = ReceiverProcess()
    sessions = [Session.objects.create(account=account, name=f"scale-{n}") for n in range(SESSIONS)]
    for session in sessions:
        Webhook.objects.create(account=account, session=session, url=receiver.url, events=["message"])
    webs = [start_web({**os.environ}, log=open(tmp / f"web{n}.log", "wb")) for n in range(2)]  # noqa: SIM115
    db = "PostgreSQL" if "postgres" in os.environ["DATABASE_URL"] else "SQLite"
    broker = "Redis" if os.environ.get("REDIS_URL") else "filesystem"
    try:
        print(
            f"scale-out bench: {args.events} sends per phase, {args.clients} API clients, "
            f"{SESSIONS} sessions, worker threads {args.concurrency}, {db} + {broker}, {os.cpu_count()} CPUs"
        )
        for session in sessions:
            pair(webs[0][1], str(session.pk), key)
        sids = [str(session.pk) for session in sessions]
        for round_ in range(1, args.rounds + 1):
            one, one_cpu = phase(receiver, webs, sids, key, count=1, args=args)
            two, two_cpu = phase(receiver, webs, sids, key, count=2, args=args)
            print(
                f"  round {round_}: 1 web + 1 worker {one:7.1f} events/s ({one_cpu:.2f} ms CPU per event); "
                f"2 + 2 {two:7.1f} events/s ({two_cpu:.2f} ms); ratio 2+2 / 1+1 = {two / one:.2f}"
            )
        print("  (a shared, noisy machine: compare the rounds of one run, not runs across days)")
    finally:
        for web, _ in webs:
            web.terminate()
        for web, _ in webs:
            web.wait(timeout=15)
        receiver.stop()
        Account.objects.filter(pk=account.pk).delete()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
