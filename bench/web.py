"""Requests/s of small requests on Ponte's web process (uvicorn serving config.asgi:application) against
the same Django code under gunicorn WSGI workers, the same number of processes, in the same run, printed
as ratios (target >= 0.8), with a trivial ASGI app on uvicorn as the ceiling of the server itself; and
each server's CPU per request of each route (its processes' user + system time over the requests served),
as a ratio to its own `/healthz` (issue 44: a keyed `/api/me` <= 2 x `/healthz` in the same process).

    .venv/bin/python bench/web.py [--seconds 3] [--clients 4] [--rounds 2] [--processes 1]
                                  [--servers ponte,gunicorn-sync,gunicorn-gthread,django-asgi]
                                  [--cases /healthz,/api/me,...]

Every server is started here on a free port. With DATABASE_URL and REDIS_URL set it runs on PostgreSQL
(a throw-away database `<name>_bench`, dropped afterwards) and Redis (its own key prefix); otherwise on a
throw-away SQLite file and the local-memory cache. Rate limits are lifted (a key would hit its plan's
requests/minute within a second).

Servers: `ponte` (this entry point: Django on a PONTE_WEB_THREADS pool behind uvicorn), `gunicorn-sync`
(the reference: one request at a time per process), `gunicorn-gthread` (PONTE_WEB_THREADS threads per
process), `django-asgi` (Django's own ASGI handler under uvicorn: the web tier before issue 13).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

from delivery_instruments import cpu_seconds  # bench/ is sys.path[0]
from serving import free_port

ROOT = Path(__file__).resolve().parent.parent
# (numerator, denominator) of the ratios printed per case; the target is ponte / gunicorn-sync >= 0.8.
RATIOS = [
    ("ponte", "gunicorn-sync"),
    ("ponte", "gunicorn-gthread"),
    ("django-asgi", "gunicorn-sync"),
    ("granian-asgi", "ponte"),
    ("granian-wsgi", "ponte"),
]
UVICORN = [sys.executable, "-m", "uvicorn", "--no-access-log", "--log-level", "warning"]
GUNICORN = [sys.executable, "-m", "gunicorn", "--log-level", "warning", "config.wsgi:application"]
GRANIAN = [sys.executable, "-m", "granian", "--log-level", "warning", "--no-access-log"]


def bench_database() -> str | None:
    """A fresh PostgreSQL database next to DATABASE_URL's, or None on the embedded default."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return None
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/") + "_bench"
    with psycopg.connect(parsed._replace(path="/postgres").geturl(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    return parsed._replace(path="/" + name).geturl()


def drop_database(url: str) -> None:
    import psycopg

    parsed = urlparse(url)
    with psycopg.connect(parsed._replace(path="/postgres").geturl(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{parsed.path.lstrip("/")}" WITH (FORCE)')


def prepare() -> str:
    """Migrate, load demo bonds, issue an admin key on an unlimited plan. Returns the key."""
    import django

    sys.path.insert(0, str(ROOT))
    django.setup()
    from django.core.management import call_command

    from accounts.models import Plan
    from accounts.services import account_create, api_key_create
    from bonds import demo

    call_command("migrate", verbosity=0)
    demo.load(stdout=open(os.devnull, "w"))  # noqa: SIM115
    plan = Plan.objects.filter(requests_per_minute__isnull=True).first() or Plan.objects.first()
    account = account_create(name="bench", plan=plan, bonds_subscription="active")
    _, key = api_key_create(account=account, role="admin")
    return key


def tree_cpu_seconds(pid: int) -> float:
    """CPU time so far of a process and its descendants (a gunicorn master and its workers)."""
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        total += cpu_seconds(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                pending.extend(int(child) for child in task.read_text().split())
            except OSError:
                continue
    return total


def hammer(port: int, path: str, headers: dict[str, str], seconds: float, clients: int) -> float:
    """Requests/s over `clients` keep-alive connections (reopened when a server closes them)."""
    return hammer_counted(port, path, headers, seconds, clients)[0]


def hammer_counted(
    port: int, path: str, headers: dict[str, str], seconds: float, clients: int
) -> tuple[float, int]:
    """Requests/s over `clients` keep-alive connections, and how many requests were answered."""
    counts = [0] * clients
    errors: list[str] = []
    stop = time.monotonic() + seconds

    def run(slot: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < stop:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                errors.append(f"{path}: HTTP {response.status}")
                return
            counts[slot] += 1
        connection.close()

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(slot,)) for slot in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError(errors[0])
    return sum(counts) / (time.monotonic() - started), sum(counts)


def server_command(name: str, port: int, processes: int, threads: int) -> list[str]:
    bind = ["--host", "127.0.0.1", "--port", str(port), "--workers", str(processes)]
    gunicorn_bind = ["--bind", f"127.0.0.1:{port}", "--workers", str(processes)]
    return {
        "ponte": [*UVICORN, *bind, "config.asgi:application"],
        "raw-asgi": [*UVICORN, *bind, "bench.web_apps:raw"],
        "django-asgi": [*UVICORN, *bind, "bench.web_apps:django_asgi"],
        "gunicorn-sync": [*GUNICORN, *gunicorn_bind, "-k", "sync"],
        "gunicorn-gthread": [*GUNICORN, *gunicorn_bind, "-k", "gthread", "--threads", str(threads)],
        # The same ASGI entry point as `ponte` (the bridge inside), under granian instead of uvicorn.
        "granian-asgi": [*GRANIAN, *bind, "--interface", "asgi", "config.asgi:application"],
        # Django's WSGI handler on granian's own blocking threads: no bridge, no /ws, no /bonds/mcp.
        "granian-wsgi": [*GRANIAN, *bind, "--interface", "wsgi", "--blocking-threads", str(threads),
                         "config.wsgi:application"],
    }[name]  # fmt: skip


def serves_asgi_paths(port: int) -> str:
    """Whether a server answers the two routes only the ASGI entry point serves: a WebSocket handshake
    on /ws (101) and an MCP `initialize` on /bonds/mcp (a JSON-RPC reply)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(
        "GET",
        "/ws",
        headers={"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                 "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="},
    )  # fmt: skip
    websocket = connection.getresponse().status == 101
    connection.close()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "bench", "version": "1"}}}  # fmt: skip
    connection.request(
        "POST",
        "/bonds/mcp",
        body=json.dumps(initialize),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
    )
    reply = connection.getresponse()
    mcp = b'"jsonrpc"' in reply.read(4096)
    connection.close()
    return f"/ws {'yes' if websocket else 'no'}, /bonds/mcp {'yes' if mcp else 'no'}"


def start(name: str, processes: int, threads: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    # WhiteNoise warns in every process that STATIC_ROOT does not exist (no collectstatic here).
    env = {**os.environ, "PYTHONWARNINGS": "ignore::UserWarning"}
    if name == "django-asgi":
        env["BENCH_WEB_DJANGO_ASGI"] = "1"
        # A new thread, so a new connection, per request: kept for CONN_MAX_AGE they would pile up and
        # exhaust the server's connections within seconds (the fault issue 13 fixes). Closed after each
        # request instead, which costs this server the same connect per request and nothing more.
        env["DB_CONN_MAX_AGE"] = "0"
    server = subprocess.Popen(server_command(name, port, processes, threads), cwd=ROOT, env=env)
    deadline = time.monotonic() + 60
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return server, port
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            raise RuntimeError(f"{name} did not start")
        time.sleep(0.2)


def print_cpu(cpu: dict[str, dict[str, list[list[float]]]], servers: list[str], cases: list[str]) -> None:
    """Each server's CPU ms per request of each case, per round, and its ratio to the same server's
    /healthz in the same round (target for a keyed /api/me: <= 2)."""

    def per_request(spent: list[float]) -> float:
        return spent[0] / spent[1] * 1000 if spent[1] else float("nan")

    print("  web CPU per request, ms (each round), and the ratio to the same server's /healthz:")
    for name in servers:
        for case in cases:
            rounds = [per_request(spent) for spent in cpu[name][case]]
            line = f"    {name:<18} {case:<22} " + " ".join(f"{ms:6.2f}" for ms in rounds)
            if "/healthz" in cpu[name] and case != "/healthz":
                floor = [per_request(spent) for spent in cpu[name]["/healthz"]]
                ratios = " ".join(f"{ms / base:5.2f}" for ms, base in zip(rounds, floor, strict=True))
                target = "  (target <= 2)" if case == "/api/me" else ""
                line += f"   x /healthz: {ratios}{target}"
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--servers", default="ponte,gunicorn-sync,gunicorn-gthread,django-asgi")
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    args = parser.parse_args()
    servers = args.servers.split(",")

    workdir = Path(tempfile.mkdtemp(prefix="ponte-bench-web-"))
    database = bench_database()
    if database:
        os.environ["DATABASE_URL"] = database
    else:
        os.environ.pop("DATABASE_URL", None)
    os.environ.update(
        {
            "PONTE_VAR_DIR": str(workdir),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "false",
            "SECRET_KEY": "bench-only-secret-key-not-used-anywhere-else-0123456789",
            "PONTE_SECRET_KEYS": "YmVuY2gtb25seS1rZXktbm90LXVzZWQtYW55d2hlcmU=",
            "LOG_LEVEL": "WARNING",
            "CACHE_KEY_PREFIX": f"bench-web-{os.getpid()}",
            "PONTE_UNLIMITED_REQUESTS_PER_MINUTE": "1000000000",
            "PONTE_ANONYMOUS_REQUESTS_PER_MINUTE": "1000000000",
            "BONDS_KEY_INTERVAL_SECONDS": "0",
        }
    )
    try:
        key = prepare()
        from django.conf import settings

        threads = settings.PONTE_WEB_THREADS
        cases = {
            "/healthz": {},
            "/api/me": {"X-API-Key": key},
            "/api/sessions": {"X-API-Key": key},
            "/bonds/api/ (preview)": {},
            "/gateway/sessions": {"x-api-key": key},
        }
        if args.cases:
            cases = {case: cases[case] for case in args.cases.split(",")}
        store = "PostgreSQL" if database else "SQLite"
        cache = "Redis" if os.environ.get("REDIS_URL") else "local memory"
        print(f"web bench: {args.processes} process(es), PONTE_WEB_THREADS={threads}, "
              f"{args.clients} keep-alive clients, {args.seconds:g} s x {args.rounds} rounds per case, "
              f"{store}, {cache} cache, "
              f"{os.cpu_count()} CPUs")  # fmt: skip
        # All servers run at once and take turns.
        started = {name: start(name, args.processes, threads) for name in [*servers, "raw-asgi"]}
        for name in servers:
            print(f"  {name:<18} serves {serves_asgi_paths(started[name][1])}")
        results: dict[str, dict[str, list[float]]] = {name: {case: [] for case in cases} for name in servers}
        # Per server and case, per round: CPU seconds of the server's processes and requests answered.
        cpu: dict[str, dict[str, list[list[float]]]] = {n: {case: [] for case in cases} for n in servers}
        raw: list[float] = []
        try:
            for name in servers:
                for case, headers in cases.items():  # warm up (first calls fill caches)
                    hammer(started[name][1], case.split(" ")[0], headers, 0.3, 1)
            # Short alternating slices, so the load of other processes on the machine hits all alike.
            slices = max(1, round(args.seconds / 0.5))
            for _ in range(args.rounds):
                for case, headers in cases.items():
                    rates: dict[str, float] = dict.fromkeys(servers, 0.0)
                    spent = {name: [0.0, 0] for name in servers}
                    for _slice in range(slices):
                        for name in servers:
                            (server, port), path = started[name], case.split(" ")[0]
                            before = tree_cpu_seconds(server.pid)
                            rate, answered = hammer_counted(
                                port, path, headers, args.seconds / slices, args.clients
                            )
                            spent[name][0] += tree_cpu_seconds(server.pid) - before
                            spent[name][1] += answered
                            rates[name] += rate / slices
                    for name in servers:
                        results[name][case].append(rates[name])
                        cpu[name][case].append(spent[name])
                raw.append(hammer(started["raw-asgi"][1], "/", {}, args.seconds, args.clients))
        finally:
            for server, _port in started.values():
                server.terminate()
            for server, _port in started.values():
                server.wait(timeout=15)

        def cell(runs: list[float]) -> str:
            return f"{min(runs):7.0f}-{max(runs):<7.0f}"

        pairs = [(a, b) for a, b in RATIOS if a in servers and b in servers]
        print(f"  {'case':<22}" + "".join(f"{name:>18}" for name in servers) + "   ratios")
        for case in cases:
            mean = {name: sum(results[name][case]) / args.rounds for name in servers}
            line = f"  {case:<22}" + "".join(f"{cell(results[name][case]):>18}" for name in servers)
            print(line + "  " + "  ".join(f"{a} / {b} {mean[a] / mean[b]:.2f}" for a, b in pairs))
        print(f"  raw ASGI app on uvicorn (ceiling): {cell(raw).strip()} req/s")
        print_cpu(cpu, servers, list(cases))
    finally:
        if database:
            drop_database(database)


if __name__ == "__main__":
    main()
