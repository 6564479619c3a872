"""Requests/s of GET /bonds/api/ with 2,000 (or --offers) active offers against a bare Django view returning a
prebuilt body of the same size, on the same uvicorn server in the same run, printed as ratios
(target >= 0.8).

    .venv/bin/python bench/bonds.py [--seconds 3] [--clients 4] [--rounds 2] [--offers 2000]

The web process's memory (resident, and its peak) is printed after each case: with replies cached
whole, it grows with the size of the list once, not with the number of requests.

Keyed cases are also compared with a bare view that first looks the key up (accounts'
api_key_authenticate, one query), which a keyed call cannot skip, to separate that cost from the
list's own.

Runs on a throw-away SQLite database in a temporary directory (REDIS_URL is kept when set, so the
reply cache is Redis then). Keyed calls run with BONDS_KEY_INTERVAL_SECONDS=0: with the 5-second rule
on, a key could make one call every 5 s, which measures nothing.
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OFFERS = 2000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def memory_mb(pid: int) -> tuple[float, float]:
    """(resident, peak resident) MB of a process (Linux /proc; zeros elsewhere)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0.0, 0.0
    values = {
        line.split(":")[0]: int(line.split()[1]) / 1024
        for line in lines
        if line.startswith("VmRSS") or line.startswith("VmHWM")
    }
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def prepare(workdir: Path) -> tuple[str, dict[str, str]]:
    """Migrate a fresh database, load 2,000 offers, issue a key, save each reply body for the bare
    views. Returns the key and {case name: path of the Ponte request}."""
    import django

    sys.path.insert(0, str(ROOT))
    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from accounts.models import Plan
    from accounts.services import account_create, api_key_create
    from bonds import demo
    from bonds.models import Bond

    call_command("migrate", verbosity=0)
    demo.load(stdout=open(os.devnull, "w"), count=OFFERS - len(demo.TESOURO))  # noqa: SIM115
    active = Bond.objects.filter(is_active=True).count()
    # The demo market may draw a few offers twice at large counts (one natural key): within 1 %.
    assert abs(active - OFFERS) <= OFFERS // 100, (active, OFFERS)
    account = account_create(
        name="bench", plan=Plan.objects.get(name="Empresarial"), bonds_subscription="active"
    )
    _, key = api_key_create(account=account, role="viewer")
    # keyed_*: a subscribed key, every one of the 2,000 offers (one key lookup per call);
    # preview_*: no key, the first 5 of the 2,000 (no database work on a cached reply).
    cases = {
        "keyed_json": "/bonds/api/",
        "keyed_csv": "/bonds/api/?format=csv",
        "keyed_csv_ptbr": "/bonds/api/?format=csv&locale=pt-BR",
        "preview_json": "/bonds/api/",
        "preview_csv": "/bonds/api/?format=csv",
    }
    bodies = workdir / "bodies"
    bodies.mkdir()
    client = Client()
    for name, path in cases.items():
        headers = {} if name.startswith("preview") else {"HTTP_AUTHORIZATION": f"Bearer {key}"}
        response = client.get(path, **headers)
        status = response["X-Ponte-Status"]
        assert status == ("preview" if name.startswith("preview") else "ok"), (name, status)
        suffix = ".csv" if "csv" in name else ".json"
        (bodies / f"{name}{suffix}").write_bytes(response.content)
    return key, cases


def hammer(port: int, path: str, headers: dict[str, str], seconds: float, clients: int) -> tuple[float, int]:
    """Requests/s over `clients` keep-alive connections for `seconds`; returns (rate, body size)."""
    counts = [0] * clients
    sizes = [0] * clients
    stop = time.monotonic() + seconds

    def run(slot: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < stop:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                raise RuntimeError(f"{path}: HTTP {response.status}")
            sizes[slot] = len(body)
            counts[slot] += 1
        connection.close()

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(slot,)) for slot in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.monotonic() - started), max(sizes)


def main() -> None:
    global OFFERS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--offers", type=int, default=OFFERS)
    args = parser.parse_args()
    OFFERS = args.offers

    workdir = Path(tempfile.mkdtemp(prefix="ponte-bench-bonds-"))
    os.environ.pop("DATABASE_URL", None)
    os.environ.update(
        {
            "PONTE_VAR_DIR": str(workdir),
            "DJANGO_SETTINGS_MODULE": "bench.bonds_server.settings",
            "BENCH_BODIES_DIR": str(workdir / "bodies"),
            "BONDS_KEY_INTERVAL_SECONDS": "0",
            "DEBUG": "false",
            "SECRET_KEY": "bench-only-secret-key-not-used-anywhere-else-0123456789",
            "PONTE_SECRET_KEYS": "YmVuY2gtb25seS1rZXktbm90LXVzZWQtYW55d2hlcmU=",
            "LOG_LEVEL": "WARNING",
        }
    )
    key, cases = prepare(workdir)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port),
         "--no-access-log", "--log-level", "warning"],
        cwd=ROOT,
        env=os.environ.copy(),
    )  # fmt: skip
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        cache = "Redis" if os.environ.get("REDIS_URL") else "local memory"
        print(f"bonds bench: {OFFERS} active offers, uvicorn (1 process), {args.clients} keep-alive clients, "
              f"{args.seconds:g} s x {args.rounds} rounds per case, SQLite, {cache} cache")  # fmt: skip
        auth = {"Authorization": f"Bearer {key}"}
        results: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in cases}
        before = memory_mb(server.pid)
        for name, path in cases.items():  # warm both (first call renders and caches)
            hammer(port, path, {} if name.startswith("preview") else auth, 0.3, 1)
        warm = memory_mb(server.pid)
        print(f"  web process memory: {before[0]:.0f} MB idle, {warm[0]:.0f} MB with every reply cached")
        # Short alternating slices, so the load of other processes on the machine hits both sides alike.
        slices = max(1, int(args.seconds / 0.5))
        for _ in range(args.rounds):
            for name, path in cases.items():
                keyed = not name.startswith("preview")
                headers = auth if keyed else {}
                for _slice in range(slices):
                    ponte, size = hammer(port, path, headers, 0.5, args.clients)
                    bare, bare_size = hammer(port, f"/bench/bare/{name}", {}, 0.5, args.clients)
                    assert size == bare_size, (name, size, bare_size)
                    lookup = 0.0
                    if keyed:
                        lookup, _ = hammer(
                            port, f"/bench/bare-after-key-lookup/{name}", auth, 0.5, args.clients
                        )
                    results[name].append((ponte, bare, lookup, size))
        worst = 10.0
        for name, runs in results.items():
            ponte = sum(r[0] for r in runs) / len(runs)
            bare = sum(r[1] for r in runs) / len(runs)
            lookup = sum(r[2] for r in runs) / len(runs)
            ratio = ponte / bare
            worst = min(worst, ratio)
            extra = (
                f"  (bare after a key lookup {lookup:6.1f} req/s, ratio {ponte / lookup:.2f})"
                if lookup
                else ""
            )
            print(f"  {name:<15} {runs[0][3]:>9,} bytes  ponte {ponte:7.1f} req/s  bare {bare:7.1f} req/s  "
                  f"ratio {ratio:.2f}{extra}")  # fmt: skip
        after = memory_mb(server.pid)
        print(f"  web process memory after the run: {after[0]:.0f} MB (peak {after[1]:.0f} MB)")
        print(f"worst ratio {worst:.2f} (target >= 0.80): {'OK' if worst >= 0.8 else 'BELOW TARGET'}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
