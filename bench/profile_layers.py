"""A cProfile profile summarised by layer, for bench/profile_event_path.py: which layer a function
belongs to (LAYERS, by its file), the neutral functions' time charged to their callers, the difference
of two snapshots, the summary table and the top functions.
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

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
            "webhooks/outbox/values.py",
            "webhooks/outbox/hints.py",
            "webhooks/outbox/fifo.py",
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
