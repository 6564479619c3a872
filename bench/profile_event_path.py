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
layer by its module (the rules in LAYERS); a function of a neutral module (the standard library,
builtins, django.utils and the like: json, logging excepted) is charged to its callers' layers, in
proportion to the time it spent under each (cProfile's caller edges), up the call graph until a
classified caller. The % are the profile's; the "ms" column is that share of the unprofiled CPU per
event of the baseline (profiling inflates Python calls more than C, so the ms are an estimate). Then
the cumulative time of a few entry points per event, and the top functions by own time.

`--keep DIR` leaves each phase's difference there as a pstats file (`python -m pstats DIR/send-web.prof`).
A shared, noisy machine: compare shares (%), run it twice.
"""

from __future__ import annotations

import argparse
import marshal
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from delivery_instruments import cpu_seconds  # noqa: E402
from event_path import (  # noqa: E402
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
from serving import start_web, start_worker  # noqa: E402

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

# Layers, first match wins, on a function's file (relative to site-packages, the standard library or the
# project). None: neutral, charged to its callers.
NEUTRAL = None
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "s  server: uvicorn, event loop, WSGI bridge, threads",
        (
            "uvicorn/",
            "h11/",
            "httptools/",
            "asyncio/",
            "selectors.py",
            "concurrent/futures/",
            "threading.py",
            "queue.py",
            "core/wsgi_bridge.py",
            "core/observe.py",
            "config/asgi.py",
            "bonds/mcp/asgi.py",
            "webhooks/live/asgi.py",
            "anyio/",
        ),
    ),
    (
        "l  logging, metrics",
        (
            "logging/",
            "core/logs.py",
            "core/logfilters.py",
            "core/metrics.py",
            "prometheus_client/",
            "webhooks/outbox/metrics.py",
            "jobs/metrics.py",
            "messaging/metrics.py",
        ),
    ),
    (
        "a  Django handler + middleware (outside the view)",
        (
            "django/core/handlers/",
            "django/middleware/",
            "django/contrib/sessions/",
            "django/contrib/auth/",
            "django/contrib/messages/",
            "django/urls/",
            "django/http/",
            "django/views/",
            "django/core/signals.py",
            "whitenoise/",
            "core/db_outage.py",
            "core/badinput.py",
            "core/locale.py",
            "core/health.py",
            "portal/error_pages.py",
        ),
    ),
    (
        "b2 DRF serializers (validation, representation)",
        (
            "rest_framework/serializers.py",
            "rest_framework/fields.py",
            "rest_framework/validators.py",
            "rest_framework/relations.py",
            "rest_framework/utils/serializer_helpers.py",
            "rest_framework/utils/field_mapping.py",
            "rest_framework/utils/model_meta.py",
            "core/api_fields.py",
            "core/fields.py",
            "core/unset.py",
        ),
    ),
    (
        "b  DRF dispatch (negotiation, parsing, auth/throttle/perm plumbing, rendering)",
        (
            "rest_framework/",
            "core/negotiation.py",
            "core/errors.py",
            "core/metadata.py",
            "core/authorization.py",
        ),
    ),
    ("c  API key check, rate limits (accounts.*, core.cache)", ("accounts/", "core/cache.py")),
    (
        "e  event recording, outbox store, sinks",
        (
            "webhooks/services.py",
            "webhooks/outbox/store",
            "webhooks/outbox/emit_sql.py",
            "webhooks/outbox/recording.py",
            "webhooks/outbox/values.py",
            "webhooks/outbox/hints.py",
            "webhooks/outbox/fifo.py",
            "webhooks/outbox/sql.py",
            "webhooks/payloads.py",
            "webhooks/event_",
            "webhooks/catalogue.py",
            "webhooks/body_filters.py",
            "webhooks/models/",
            "webhooks/stream/",
            "webhooks/live/",
            "webhooks/registered/",
            "integrations/",
        ),
    ),
    ("d  view body, messaging services, engine (sandbox)", ("messaging/",)),
    ("f1 Django ORM (query building, model instances)", ("django/db/models/",)),
    ("f2 SQL execution (django.db.backends, transactions, psycopg)", ("django/db/", "psycopg")),
    ("g  Redis client", ("redis/", "core/kombu_redis.py")),
    ("h  Celery / kombu (publish in web, consume in worker)", ("celery/", "kombu/", "billiard/", "vine/")),
    ("i  worker drain (jobs.*, webhooks.outbox.*)", ("jobs/", "webhooks/outbox/", "webhooks/tasks.py")),
    (
        "j  HTTP POST to the receiver (sending/posting, net, urllib3/requests)",
        (
            "webhooks/signing.py",
            "net/",
            "urllib3/",
            "requests/",
            "httpx/",
            "httpcore/",
            "http/client.py",
            "email/",
        ),
    ),
    ("o  other Ponte code", ("core/", "config/", "webhooks/", "bonds/", "portal/")),
]
OTHER_LIBRARY = "x  other libraries"
UNATTRIBUTED = "?  unattributed (no classified caller)"
# Modules of these prefixes (relative to site-packages) are libraries; anything else outside the
# project and the standard library, and builtins ('~'), is neutral.
STDLIB_MARK = f"python{sys.version_info.major}.{sys.version_info.minor}/"


def relative(filename: str) -> tuple[str, str]:
    """('site' | 'project' | 'stdlib' | 'builtin', path relative to its root)."""
    if filename in ("~", "") or filename.startswith("<"):
        return "builtin", filename
    if "site-packages/" in filename:
        return "site", filename.split("site-packages/", 1)[1]
    root = str(ROOT) + "/"
    if filename.startswith(root):
        return "project", filename[len(root) :]
    if STDLIB_MARK in filename:
        return "stdlib", filename.split(STDLIB_MARK, 1)[1]
    return "builtin", filename


def layer_of(func: tuple[str, int, str]) -> str | None:
    kind, path = relative(func[0])
    if kind == "builtin":
        return NEUTRAL
    for name, prefixes in LAYERS:
        if path.startswith(prefixes):
            if name.startswith("o ") and kind != "project":
                break
            return name
    if kind == "project":
        return "o  other Ponte code"
    if kind == "site" and not path.startswith(("django/", "json", "asgiref/")):
        return OTHER_LIBRARY
    return NEUTRAL  # the standard library, django.utils/conf/dispatch/apps/template, asgiref


def by_layer(stats: dict) -> dict[str, list[float]]:
    """Every function's own time (and its calls), in its layer's; a neutral function's spread over its
    callers: {layer: [seconds, calls]}."""
    shares: dict = {}

    def share_of(func, visiting: frozenset) -> dict[str, float]:
        if func in shares:
            return shares[func]
        layer = layer_of(func)
        if layer is not None:
            result = {layer: 1.0}
        else:
            callers = stats.get(func, (0, 0, 0, 0, {}))[4]
            weights = {c: edge[3] for c, edge in callers.items() if edge[3] > 0 and c not in visiting}
            total = sum(weights.values())
            if not total:
                result = {UNATTRIBUTED: 1.0}
            else:
                result = {}
                for caller, weight in weights.items():
                    for name, part in share_of(caller, visiting | {func}).items():
                        result[name] = result.get(name, 0.0) + part * weight / total
        if not visiting:  # only a result computed without a cycle cut is kept
            shares[func] = result
        return result

    layers: dict[str, list[float]] = {}
    for func, (_cc, nc, tt, _ct, _callers) in stats.items():
        if tt <= 0 and nc <= 0:
            continue
        for name, part in share_of(func, frozenset()).items():
            into = layers.setdefault(name, [0.0, 0.0])
            into[0] += tt * part
            into[1] += nc * part
    return layers


# Entry points whose cumulative time (per event) is printed: (label, file suffix, function name).
ENTRIES = [
    ("WsgiBridge.__call__ (event loop side)", "core/wsgi_bridge.py", "__call__"),
    ("WsgiBridge._run (a pool thread's request)", "core/wsgi_bridge.py", "_run"),
    ("Django WSGIHandler.__call__", "django/core/handlers/wsgi.py", "__call__"),
    ("Django _get_response (URL resolve + view)", "django/core/handlers/base.py", "_get_response"),
    ("DRF APIView.dispatch", "rest_framework/views.py", "dispatch"),
    ("DRF initialize_request", "rest_framework/views.py", "initialize_request"),
    ("DRF initial (auth, perms, throttles)", "rest_framework/views.py", "initial"),
    ("DRF finalize_response", "rest_framework/views.py", "finalize_response"),
    ("DRF Response.rendered_content", "rest_framework/response.py", "rendered_content"),
    ("Request.data (parsing)", "rest_framework/request.py", "data"),
    ("accounts keyed_call_admit (key check + rate limits)", "accounts/admission.py", "keyed_call_admit"),
    ("messaging send view (MessageSend.post)", "messaging/api/messages.py", "post"),
    ("sandbox inbound view (SandboxInboundApi.post)", "messaging/api/sandbox.py", "post"),
    ("webhooks.services.emit", "webhooks/services.py", "emit"),
    ("transaction.atomic __exit__", "django/db/transaction.py", "__exit__"),
    ("psycopg Cursor.execute (statements)", "psycopg/cursor.py", "execute"),
    ("Redis Connection.read_response (round trips)", "redis/connection.py", "read_response"),
    ("Celery task trace", "celery/app/trace.py", "trace_task"),
    ("webhooks.tasks.deliver", "webhooks/tasks.py", "deliver"),
    ("outbox delivery_attempt", "webhooks/outbox/deliveries.py", "delivery_attempt"),
    ("jobs.drain.run", "jobs/drain.py", "run"),
    ("outbox sending.send_batch", "webhooks/outbox/sending.py", "send_batch"),
    ("outbox posting.attempt", "webhooks/outbox/posting.py", "attempt"),
    ("outbox _record_batch", "webhooks/outbox/deliveries.py", "_record_batch"),
    ("requests Session.request", "requests/sessions.py", "request"),
    ("kombu publish (Producer.publish)", "kombu/messaging.py", "publish"),
]


def difference(after: dict, before: dict) -> dict:
    """after - before, function by function and caller edge by caller edge (what ran in between)."""
    out = {}
    for func, (cc, nc, tt, ct, callers) in after.items():
        old = before.get(func)
        if old is None:
            out[func] = (cc, nc, tt, ct, callers)
            continue
        if nc == old[1]:
            continue
        edges = {}
        for caller, edge in callers.items():
            was = old[4].get(caller)
            edge = edge if was is None else tuple(a - b for a, b in zip(edge, was, strict=True))
            if edge[0]:
                edges[caller] = edge
        out[func] = (cc - old[0], nc - old[1], tt - old[2], ct - old[3], edges)
    return out


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


def label(func: tuple[str, int, str]) -> str:
    kind, path = relative(func[0])
    if kind == "builtin":
        return func[2]
    return f"{path}:{func[1]}({func[2]})"


def summarise(
    title: str, stats: dict, events: int, unprofiled_ms: float | None, profiled_ms: float | None, top: int
) -> dict:
    """Print a phase's profile of one process: layers, entry points, top functions; return the layers'
    shares (%), as profiled and corrected.

    The correction: cProfile's own cost is about the same for every call, so the process's CPU the
    profiling added (`profiled_ms` - `unprofiled_ms`, from /proc) is taken off the layers in proportion
    to their calls; a layer of many small calls then shrinks more than one of a few C calls."""
    total = sum(entry[2] for entry in stats.values())
    per_event = total / events * 1000
    calls = sum(entry[1] for entry in stats.values()) / events
    scale = f", unprofiled {unprofiled_ms:.2f} ms (/proc)" if unprofiled_ms else ""
    print(f"\n  {title}: profiled CPU {per_event:.2f} ms per event{scale}, {calls:.0f} calls per event")
    layers = by_layer(stats)
    per_call = 0.0
    if unprofiled_ms and profiled_ms and calls:
        per_call = max(0.0, profiled_ms - unprofiled_ms) / calls  # ms of profiling per call
    corrected = {
        name: max(0.0, sec / events * 1000 - per_call * n / events) for name, (sec, n) in layers.items()
    }
    corrected_total = sum(corrected.values()) or 1.0
    print(
        "      profiled %   corrected %   ms (corrected % of unprofiled)   calls/event   layer"
        + (f"   [profiling ~{per_call * 1000:.2f} us per call]" if per_call else "")
    )
    shares = {}
    for name, (seconds, n) in sorted(layers.items(), key=lambda item: -item[1][0]):
        share = seconds / total * 100 if total else 0.0
        fixed = corrected[name] / corrected_total * 100
        shares[name] = (share, fixed)
        ms = f"{fixed / 100 * unprofiled_ms:6.2f} ms" if unprofiled_ms else "      "
        print(f"      {share:8.1f} %   {fixed:9.1f} %   {ms:>30}   {n / events:9.0f}   {name}")
    print("    cumulative, per event (profiled ms; % of the process's profiled CPU):")
    for what, suffix, name in ENTRIES:
        found = [v for f, v in stats.items() if f[2] == name and f[0].endswith(suffix)]
        if not found:
            continue
        ct = sum(v[3] for v in found)
        n = sum(v[0] for v in found)
        print(
            f"      {ct / events * 1000:6.2f} ms {ct / total * 100:5.1f} %  {what}  ({n / events:.1f} calls)"
        )
    print("    Ponte's functions by cumulative time (profiled ms per event, calls per event):")
    ours = [(f, v) for f, v in stats.items() if relative(f[0])[0] == "project" and v[0]]
    for func, (cc, _nc, _tt, ct, _callers) in sorted(ours, key=lambda item: -item[1][3])[:top]:
        print(
            f"      {ct / events * 1000:6.2f} ms {ct / total * 100:5.1f} % {cc / events:5.1f}  {label(func)}"
        )
    print(f"    top {top} by own time (tottime, ms per event, calls per event):")
    ranked = sorted(stats.items(), key=lambda item: -item[1][2])[:top]
    for func, (_cc, nc, tt, _ct, _callers) in ranked:
        layer = (layer_of(func) or "neutral").split()[0]
        print(f"      {tt / events * 1000:6.3f} ms {nc / events:6.1f}  [{layer}] {label(func)}")
    return shares


def dump(stats: dict, path: Path) -> None:
    path.write_bytes(marshal.dumps(stats))


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
