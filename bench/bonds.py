"""Requests/s of GET /bonds/api/ with 2,000 (or --offers) active offers against a bare Django view returning a
prebuilt body of the same size, on the same uvicorn server in the same run, printed as ratios
(target >= 0.8).

    .venv/bin/python bench/bonds.py [--seconds 3] [--clients 4] [--rounds 2] [--offers 2000] [--uncached 5]

(`--rounds 0` skips the cached cases, `--uncached 0` the uncached ones.)

The web process's memory (resident, and its peak) is printed after each case: with replies cached
whole, it grows with the size of the list once, not with the number of requests.

Keyed cases are also compared with a bare view that first looks the key up (accounts'
api_key_authenticate, one query), which a keyed call cannot skip, to separate that cost from the
list's own.

Then the uncached full lists (--uncached N calls each, 0 skips them): every call finds the reply cache
emptied (a bench-only view clears it), so it renders the whole list, streamed. Each format runs on a
fresh web process, and again on one with BONDS_STREAM_ROWS past the list's length, which renders it
whole (the way every miss was rendered before streaming): the peak resident memory's growth over the
N calls is printed for both, the memory a render costs a request.

Runs on a throw-away SQLite database in a temporary directory (REDIS_URL is kept when set, so the
reply cache is Redis then: give the bench a Redis database of its own, the uncached case empties it).
Keyed calls run with BONDS_KEY_INTERVAL_SECONDS=0: with the 5-second rule on, a key could make one call
every 5 s, which measures nothing.
"""

from __future__ import annotations

import argparse
import http.client
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from serving import start_web  # bench/ is sys.path[0]

ROOT = Path(__file__).resolve().parent.parent
OFFERS = 2000


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


def peak_reset(pid: int) -> bool:
    """Restart a process's peak resident figure (VmHWM) from its current one (Linux, own processes)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


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
        body = b"".join(response.streaming_content) if response.streaming else response.content
        (bodies / f"{name}{suffix}").write_bytes(body)
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


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    server.wait(timeout=10)


def cached_cases(server: subprocess.Popen, port: int, cases: dict[str, str], auth: dict, args) -> float:
    """Every case against its bare view, alternating short slices; prints ratios and the web process's
    memory after each case. Returns the worst ratio."""
    results: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in cases}
    memory: dict[str, tuple[float, float]] = {}
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
                    lookup, _ = hammer(port, f"/bench/bare-after-key-lookup/{name}", auth, 0.5, args.clients)
                results[name].append((ponte, bare, lookup, size))
            memory[name] = memory_mb(server.pid)
    worst = 10.0
    for name, runs in results.items():
        ponte = sum(r[0] for r in runs) / len(runs)
        bare = sum(r[1] for r in runs) / len(runs)
        lookup = sum(r[2] for r in runs) / len(runs)
        ratio = ponte / bare
        worst = min(worst, ratio)
        extra = ""
        if lookup:
            extra = f"  (bare after a key lookup {lookup:6.1f} req/s, ratio {ponte / lookup:.2f})"
        rss, peak = memory[name]
        print(f"  {name:<15} {runs[0][3]:>9,} bytes  ponte {ponte:7.1f} req/s  bare {bare:7.1f} req/s  "
              f"ratio {ratio:.2f}  memory {rss:.0f} MB (peak {peak:.0f}){extra}")  # fmt: skip
    after = memory_mb(server.pid)
    print(f"  web process memory after the run: {after[0]:.0f} MB (peak {after[1]:.0f} MB)")
    return worst


def uncached_calls(port: int, path: str, auth: dict, calls: int) -> tuple[float, int, bool]:
    """`calls` keyed calls of `path`, each after the reply cache was emptied; returns (seconds per call,
    body size, whether every reply was streamed)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    streamed = True
    size = 0
    took = 0.0
    for _ in range(calls):
        connection.request("GET", "/bench/forget-replies")
        connection.getresponse().read()
        started = time.monotonic()
        connection.request("GET", path, headers=auth)
        response = connection.getresponse()
        size = len(response.read())
        took += time.monotonic() - started
        assert response.status == 200 and response.getheader("X-Ponte-Status") == "ok", response.status
        streamed = streamed and response.getheader("Content-Length") is None
    connection.close()
    return took / calls, size, streamed


def uncached_case(env: dict[str, str], path: str, auth: dict, calls: int, whole: bool) -> str:
    """One fresh web process: one uncached call to warm it, then `calls` more, with the growth of its
    peak resident memory over its resident memory before them."""
    if whole:  # a piece longer than the list: rendered whole, as every miss was before streaming
        env = {**env, "BONDS_STREAM_ROWS": str(10 * OFFERS)}
    server, port = start_web(env)
    try:
        uncached_calls(port, path, auth, 1)
        rss, _ = memory_mb(server.pid)
        reset = peak_reset(server.pid)
        seconds, size, streamed = uncached_calls(port, path, auth, calls)
        after, peak = memory_mb(server.pid)
    finally:
        stop(server)
    since = "the calls" if reset else "the process started"
    how = "streamed" if streamed else "whole"
    return (f"{how:>8}: {size:>9,} bytes  {seconds * 1000:6.0f} ms a call  memory {rss:.0f} MB before, "
            f"{after:.0f} MB after, peak {peak:.0f} MB (+{peak - rss:.0f} MB since {since})")  # fmt: skip


def main() -> None:
    global OFFERS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--offers", type=int, default=OFFERS)
    parser.add_argument("--uncached", type=int, default=5, help="uncached calls per format (0: none)")
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
    auth = {"Authorization": f"Bearer {key}"}
    cache = "Redis" if os.environ.get("REDIS_URL") else "local memory"
    print(f"bonds bench: {OFFERS} active offers, uvicorn (1 process), {args.clients} keep-alive clients, "
          f"{args.seconds:g} s x {args.rounds} rounds per case, SQLite, {cache} cache")  # fmt: skip
    worst = None
    if args.rounds:  # --rounds 0: the uncached lists only
        server, port = start_web(os.environ.copy())
        try:
            worst = cached_cases(server, port, cases, auth, args)
        finally:
            stop(server)
    if args.uncached:
        print(f"uncached full lists: {args.uncached} calls each, one at a time, cache emptied before each")
        for name in ("keyed_csv", "keyed_json"):
            for whole in (False, True):
                line = uncached_case(os.environ.copy(), cases[name], auth, args.uncached, whole)
                print(f"  {name:<15} {line}")
    if worst is not None:
        print(f"worst ratio {worst:.2f} (target >= 0.80): {'OK' if worst >= 0.8 else 'BELOW TARGET'}")


if __name__ == "__main__":
    main()
