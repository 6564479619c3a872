"""Where an event's CPU goes (issue 44): bench/event_path.py's send and inbound phases, web process and
worker under cProfile, summarised by layer.

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/profile_event_path.py \
        [--events 600] [--clients 4] [--concurrency 8] [--me] [--no-baseline] [--top 15] [--keep DIR]

It sets up what event_path.py sets up (an account, a key, a sandbox session paired through the API, a
webhook to a local receiver; rate limits on) and, unless --no-baseline, first measures the processes
unprofiled: their CPU per event from /proc, as event_path.py does, and the raw pooled POST loop's client
CPU per request (the yardstick). Then it starts the web process (uvicorn, bench/serving.start_web) and
the worker (Celery threads pool, start_worker) again, this time profiled, and pushes `--events` sends
and `--events` sandbox inbound events through them (with --me also `--events` GET /healthz and
GET /api/me), each phase between two snapshots of the profiles, so a phase's profile is their
difference (start-up, pairing and warm-up left out).

How the processes are profiled: a `sitecustomize` module written to a temporary directory put first on
the children's PYTHONPATH, active when PONTE_PROFILE_DIR is set. It runs a cProfile.Profile in every
thread (the main thread from start-up, every other thread from its `_bootstrap_inner`: uvicorn's event
loop, the WSGI bridge's pool threads, the worker's consumer and its pool threads), each timed with
`time.thread_time` (the thread's CPU, not the wall clock: waiting on PostgreSQL, Redis or the receiver
counts nothing). A finished thread's profile is merged into the process's total; a real-time signal
(SIGRTMIN + 4) makes the process write the total so far, live threads included, as a pstats file.
Calls still running at a snapshot are counted when they return (cProfile's rule).

The summary, per process and phase: the profiled CPU per event split by layer, exclusive (every
function's own time counted once, in one layer, so the layers sum to 100 %). A function belongs to a
layer by its module (the rules in bench/profile_layers.py's LAYERS); a function of a neutral module
(the standard library, builtins, django.utils and the like: json, logging excepted) is charged to its
callers' layers, in proportion to the time it spent under each (cProfile's caller edges), up the
call graph until a classified caller. The % are the profile's; the "ms" column is that share of the
unprofiled CPU per event of the baseline (profiling inflates Python calls more than C, so the ms are
an estimate). Then the cumulative time of a few entry points per event, and the top functions by own time.

`--keep DIR` leaves each phase's difference there as a pstats file (`python -m pstats DIR/send-web.prof`).
A shared, noisy machine: compare shares (%), run it twice.
"""

from __future__ import annotations

import argparse
import marshal
import os
import signal
import subprocess
import time
from pathlib import Path

from delivery_instruments import cpu_seconds
from event_path import (
    discard,
    end_to_end,
    hammer,
    inbound,
    me,
    pair,
    prepared,
    raw_post_cpu,
    sender,
)
from profile_layers import difference, dump, summarise
from serving import start_web, start_worker

SNAPSHOT_SIGNAL = signal.SIGRTMIN + 4

# The children's sitecustomize (written to a temporary directory first on their PYTHONPATH).
BOOTSTRAP = """
import os

if os.environ.get("PONTE_PROFILE_DIR"):
    import cProfile
    import marshal
    import signal
    import threading
    import time

    _DIR = os.environ["PONTE_PROFILE_DIR"]
    _lock = threading.RLock()
    _live = {}
    _done = {}
    _count = [0]

    def _merge(into, stats):
        for func, (cc, nc, tt, ct, callers) in stats.items():
            old = into.get(func)
            if old is None:
                into[func] = (cc, nc, tt, ct, dict(callers))
                continue
            merged = dict(old[4])
            for caller, edge in callers.items():
                was = merged.get(caller)
                merged[caller] = edge if was is None else tuple(a + b for a, b in zip(was, edge, strict=True))
            into[func] = (old[0] + cc, old[1] + nc, old[2] + tt, old[3] + ct, merged)

    _original = threading.Thread._bootstrap_inner

    def _bootstrap_inner(self):
        profile = cProfile.Profile(time.thread_time)
        with _lock:
            _live[id(profile)] = profile
        profile.enable()
        try:
            _original(self)
        finally:
            profile.disable()
            profile.snapshot_stats()
            with _lock:
                _merge(_done, profile.stats)
                del _live[id(profile)]

    threading.Thread._bootstrap_inner = _bootstrap_inner

    def _snapshot(signum, frame):
        # Not profiled itself: the main thread's profiler is off meanwhile (its calls under way are
        # counted now, those that return after are not, which only loses the outer frames' own time).
        _main.disable()
        try:
            _write()
        finally:
            _main.enable()

    def _write():
        with _lock:
            _count[0] += 1
            total = {}
            _merge(total, _done)
            for profile in list(_live.values()):
                profile.snapshot_stats()
                _merge(total, profile.stats)
        path = os.path.join(_DIR, f"{os.getpid()}.{_count[0]}")
        with open(path + ".part", "wb") as out:
            marshal.dump(total, out)
        os.replace(path + ".part", path + ".prof")

    signal.signal(signal.SIGRTMIN + 4, _snapshot)
    _main = cProfile.Profile(time.thread_time)
    _live[id(_main)] = _main
    _main.enable()
"""


class Profiled:
    """A profiled child process: snapshots of its profile on demand."""

    def __init__(self, process: subprocess.Popen, directory: Path) -> None:
        self.process = process
        self.directory = directory
        self.taken = 0

    def snapshot(self, timeout: float = 60) -> dict:
        self.taken += 1
        path = self.directory / f"{self.process.pid}.{self.taken}.prof"
        os.kill(self.process.pid, SNAPSHOT_SIGNAL)
        deadline = time.monotonic() + timeout
        while not path.exists():
            if time.monotonic() > deadline:
                raise SystemExit(f"no profile snapshot from pid {self.process.pid} within {timeout:.0f} s")
            time.sleep(0.05)
        return marshal.loads(path.read_bytes())


def stop(web: subprocess.Popen, worker: subprocess.Popen) -> None:
    web.terminate()
    try:
        web.wait(timeout=20)
    except subprocess.TimeoutExpired:
        web.kill()
    worker.terminate()  # warm shutdown
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        worker.kill()


def settle(pid: int, seconds: float = 0.5) -> None:
    """Wait until `pid` has been idle (no CPU) for a moment, or 5 s: the worker records its outcomes
    after the receiver has the event."""
    deadline = time.monotonic() + 5
    last = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(seconds)
        now = cpu_seconds(pid)
        if now - last < 0.02:
            return
        last = now


def baseline(env, receiver, key, sid, args, tmp) -> dict:
    """Unprofiled: CPU ms per event of web and worker (from /proc), per /healthz and /api/me request, and
    the raw POST yardstick."""
    worker = start_worker(dict(env), args.concurrency)
    web, port = start_web(dict(env), log=open(tmp / "web-baseline.log", "wb"))  # noqa: SIM115
    out = {}
    try:
        pids = [web.pid, worker.pid]
        send, receive = sender(sid, key), inbound(sid, key)
        end_to_end(receiver, port, key, send, events=40, clients=args.clients, pids=pids)
        end_to_end(receiver, port, key, receive, events=40, clients=args.clients, pids=pids)
        out["raw"] = raw_post_cpu(receiver, requests=args.events)
        for phase, call in (("send", send), ("inbound", receive)):
            got = end_to_end(receiver, port, key, call, events=args.events, clients=args.clients, pids=pids)
            settle(worker.pid)
            out[phase] = {"web": got["cpu"][web.pid], "worker": got["cpu"][worker.pid]}
        if args.me:
            for path, call in (("/healthz", healthz()), ("/api/me", me(key))):
                hammer(port, key, requests=40, clients=args.clients, call=call)
                before = cpu_seconds(web.pid)
                hammer(port, key, requests=args.events, clients=args.clients, call=call)
                out[path] = (cpu_seconds(web.pid) - before) / args.events * 1000
    finally:
        stop(web, worker)
    return out


def healthz():
    def call(conn, index: int) -> None:
        conn.request("GET", "/healthz")
        reply = conn.getresponse()
        reply.read()
        if reply.status != 200:
            raise SystemExit(f"/healthz answered {reply.status}")

    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=600)
    parser.add_argument("--clients", type=int, default=4, help="keep-alive API connections")
    parser.add_argument("--concurrency", type=int, default=8, help="worker threads")
    parser.add_argument("--me", action="store_true", help="also GET /healthz and GET /api/me")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unprofiled measurement")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--keep", type=Path, help="write each phase's pstats file here")
    args = parser.parse_args()
    tmp, key, receiver, sessions = prepared("ponte-profile-", ("profile",))
    sid = str(sessions["profile"].pk)
    boot, snapshots = tmp / "boot", tmp / "profiles"
    boot.mkdir()
    snapshots.mkdir()
    (boot / "sitecustomize.py").write_text(BOOTSTRAP)
    profiled_env = {**os.environ, "PYTHONPATH": str(boot), "PONTE_PROFILE_DIR": str(snapshots)}
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    db = "PostgreSQL" if "postgres" in os.environ["DATABASE_URL"] else "SQLite"
    broker = "Redis" if os.environ.get("REDIS_URL") else "filesystem"
    print(
        f"event path profile: {args.events} events per phase, {args.clients} API clients, "
        f"{args.concurrency} worker threads, {db} + {broker}"
    )
    web = worker = None
    try:
        # Paired once, by the first web process: the session stays connected in the database.
        first, port = start_web(dict(os.environ), log=open(tmp / "web-pair.log", "wb"))  # noqa: SIM115
        try:
            pair(port, sid, key)
        finally:
            first.terminate()
            first.wait(timeout=20)
        base = None if args.no_baseline else baseline(dict(os.environ), receiver, key, sid, args, tmp)
        if base:
            print(f"  unprofiled: raw POST client CPU {base['raw']:.3f} ms per request (the yardstick)")
            for phase in ("send", "inbound"):
                web_ms, worker_ms = base[phase]["web"], base[phase]["worker"]
                print(
                    f"  unprofiled: {phase:<7} web {web_ms:.2f} ms + worker {worker_ms:.2f} ms = "
                    f"{web_ms + worker_ms:.2f} ms per event = {(web_ms + worker_ms) / base['raw']:.1f} x raw "
                    f"(worker {worker_ms / base['raw']:.1f} x)"
                )
            if args.me:
                print(
                    f"  unprofiled: /healthz {base['/healthz']:.2f} ms, /api/me {base['/api/me']:.2f} ms "
                    f"web CPU per request ({base['/api/me'] / base['/healthz']:.1f} x, target <= 2)"
                )
        worker = start_worker(dict(profiled_env), args.concurrency)
        web, port = start_web(dict(profiled_env), log=open(tmp / "web.log", "wb"))  # noqa: SIM115
        web_profile, worker_profile = Profiled(web, snapshots), Profiled(worker, snapshots)
        pids = [web.pid, worker.pid]
        send, receive = sender(sid, key), inbound(sid, key)
        end_to_end(receiver, port, key, send, events=40, clients=args.clients, pids=pids)  # warm up
        end_to_end(receiver, port, key, receive, events=40, clients=args.clients, pids=pids)
        settle(worker.pid)
        for phase, call in (("send", send), ("inbound", receive)):
            web_before, worker_before = web_profile.snapshot(), worker_profile.snapshot()
            got = end_to_end(receiver, port, key, call, events=args.events, clients=args.clients, pids=pids)
            settle(worker.pid)
            web_stats = difference(web_profile.snapshot(), web_before)
            worker_stats = difference(worker_profile.snapshot(), worker_before)
            print(
                f"\n== {phase}: {args.events} events; /proc CPU while profiled: web "
                f"{got['cpu'][web.pid]:.2f} ms, worker {got['cpu'][worker.pid]:.2f} ms per event"
            )
            for process, stats in (("web", web_stats), ("worker", worker_stats)):
                unprofiled = base[phase][process] if base else None
                pid = web.pid if process == "web" else worker.pid
                summarise(f"{phase} / {process}", stats, args.events, unprofiled, got["cpu"][pid], args.top)
                if args.keep:
                    dump(stats, args.keep / f"{phase}-{process}.prof")
        if args.me:
            for path, call in (("/healthz", healthz()), ("/api/me", me(key))):
                hammer(port, key, requests=40, clients=args.clients, call=call)
                before, cpu = web_profile.snapshot(), cpu_seconds(web.pid)
                hammer(port, key, requests=args.events, clients=args.clients, call=call)
                cpu = (cpu_seconds(web.pid) - cpu) / args.events * 1000
                stats = difference(web_profile.snapshot(), before)
                print(f"\n== GET {path}: {args.events} requests; /proc CPU while profiled: web {cpu:.2f} ms")
                summarise(f"{path} / web", stats, args.events, base[path] if base else None, cpu, args.top)
                if args.keep:
                    dump(stats, args.keep / f"{path.strip('/').replace('/', '-')}-web.prof")
        print("\n  (a shared, noisy machine: compare shares, not ms, across runs)")
    except SystemExit:
        print((tmp / "worker.log").read_text(errors="replace")[-3000:])
        print((tmp / "web.log").read_text(errors="replace")[-3000:] if (tmp / "web.log").exists() else "")
        raise
    finally:
        if web is not None and worker is not None:
            stop(web, worker)
        receiver.stop()
        discard(tmp, sessions)


if __name__ == "__main__":
    main()
