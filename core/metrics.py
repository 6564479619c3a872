"""Prometheus metrics: `GET /metrics` and the counters every process kind updates.

prometheus-client runs in multiprocess mode: each process (web, worker, beat, engine) writes its counts
to memory-mapped files under PROMETHEUS_MULTIPROC_DIR (default: <var dir>/metrics, set by the settings
before this module is imported), and a scrape of any web process adds up every process's files. Each
process calls `process_started()` as it starts: the directory is created and the files of processes that
are gone are removed (a restart resets counters, which Prometheus' rate() expects); at exit its live
gauges are marked dead.

Gauges that describe the database (queue depth, dead letters, sessions, bonds) are read at scrape time by
the collectors named in PONTE_METRICS_COLLECTORS (each app's `metrics.collect`), with cheap indexed
counts, so they are right whichever process changed the rows.

Labels are small fixed vocabularies (interface, method, status, kind, outcome, driver, product): never an
id, a key or a URL.
"""

from __future__ import annotations

import atexit
import logging
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

# Sets PROMETHEUS_MULTIPROC_DIR (when unset) before prometheus_client is imported below.
from core.env import VAR_DIR, env_str

# isort: split
from django.conf import settings
from django.core.checks import Tags, register
from django.core.checks import Warning as CheckWarning
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from django.views.decorators.csrf import csrf_exempt
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from core.authorization import bearer_token
from core.signatures import signature_matches

logger = logging.getLogger(__name__)

# --- What every process counts ----------------------------------------------------------------------

INTERFACES = ("bonds", "messaging", "webhooks", "instances", "mcp", "account", "admin", "other")
# Longest prefix first: /bonds/mcp before /bonds/.
_PREFIXES = (
    ("/bonds/mcp", "mcp"),
    ("/.well-known/oauth", "mcp"),
    ("/bonds/", "bonds"),
    ("/api/", "messaging"),
    ("/channels/", "messaging"),
    ("/gateway/", "webhooks"),
    ("/instances/", "instances"),
    ("/account/", "account"),
    ("/admin/", "admin"),
)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

HTTP_REQUESTS = Counter("ponte_http_requests", "HTTP requests answered.", ["interface", "method", "status"])
HTTP_DURATION = Histogram(
    "ponte_http_request_duration_seconds",
    "Time from the request's arrival to the end of its response.",
    ["interface"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
RATE_LIMITED = Counter("ponte_rate_limited", "Requests refused for a rate limit (429).", ["interface"])
DELIVERIES = Counter(
    "ponte_webhook_deliveries",
    "Webhook delivery attempts by outcome: delivered, failed (will retry), dead (attempts used up or "
    "webhook deleted), client_error (a 4xx an instance webhook does not retry).",
    ["kind", "outcome"],
)
DELIVERY_SECONDS = Histogram(
    "ponte_webhook_delivery_seconds",
    "From the event written to the receiver's successful answer.",
    ["kind"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900),
)


def metrics_dir() -> Path:
    return Path(env_str("PROMETHEUS_MULTIPROC_DIR", str(VAR_DIR / "metrics")))


# Values are files there, made as soon as a label set is first used (below, at import).
metrics_dir().mkdir(parents=True, exist_ok=True)

# Known label sets start at 0, so they are exported (and rate() works) before their first event.
for _interface in INTERFACES:
    RATE_LIMITED.labels(_interface)
for _kind in ("registered", "instance"):
    DELIVERY_SECONDS.labels(_kind)
    for _outcome in ("delivered", "failed", "dead", "client_error"):
        DELIVERIES.labels(_kind, _outcome)

# Label children looked up once: .labels() validates and locks on every call.
_request_children: dict[tuple[str, str, str], tuple[Callable[[], None], Callable[[float], None]]] = {}


def interface_of(path: str) -> str:
    for prefix, interface in _PREFIXES:
        if path.startswith(prefix):
            return interface
    return "other"


def request_observed(*, path: str, method: str, status: int, seconds: float) -> str:
    """Count one answered request; its interface."""
    interface = interface_of(path)
    key = (interface, method if method in METHODS else "OTHER", str(status) if 100 <= status < 600 else "0")
    children = _request_children.get(key)
    if children is None:
        children = (HTTP_REQUESTS.labels(*key).inc, HTTP_DURATION.labels(interface).observe)
        _request_children[key] = children
    children[0]()
    children[1](seconds)
    if status == 429:
        RATE_LIMITED.labels(interface).inc()
    return interface


def delivery_observed(*, kind: str, outcome: str, seconds: float | None) -> None:
    """Count one delivery attempt; `seconds` (event written → answer) when it was delivered."""
    DELIVERIES.labels(kind, outcome).inc()
    if seconds is not None:
        DELIVERY_SECONDS.labels(kind).observe(max(seconds, 0.0))


# --- Processes ----------------------------------------------------------------------------------------

_FILE_PID = re.compile(r"_(\d+)\.db$")
_started: set[int] = set()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def process_started() -> None:
    """At the start of a web, worker, beat or engine process: create the metrics directory, remove the
    files of processes that are gone, and mark this one dead at exit. Idempotent per process."""
    pid = os.getpid()
    if pid in _started:
        return
    _started.add(pid)
    directory = metrics_dir()
    directory.mkdir(parents=True, exist_ok=True)
    for path in directory.glob("*.db"):
        match = _FILE_PID.search(path.name)
        if match and int(match.group(1)) != pid and not _alive(int(match.group(1))):
            path.unlink(missing_ok=True)
    atexit.register(mark_process_dead, pid)


# --- Scrape-time readings from the database ------------------------------------------------------------


@dataclass
class Reading:
    """A gauge read at scrape time: {label values: value}."""

    name: str
    documentation: str
    labels: tuple[str, ...] = ()
    values: dict[tuple[str, ...], float] = field(default_factory=dict)


class _Readings:
    def collect(self) -> Iterable[GaugeMetricFamily]:
        for path in settings.PONTE_METRICS_COLLECTORS:
            try:
                readings: list[Reading] = import_string(path)()
            except Exception:  # one app's database reading must not take the whole scrape down
                logger.exception("Metrics collector %s failed", path)
                continue
            for reading in readings:
                family = GaugeMetricFamily(reading.name, reading.documentation, labels=reading.labels)
                for labels, value in reading.values.items():
                    family.add_metric(list(labels), value)
                yield family


def _authorized(request: HttpRequest) -> bool:
    token = settings.PONTE_METRICS_TOKEN
    if not token:
        return True
    given = bearer_token(request.headers.get("Authorization", ""))
    return signature_matches(given, token)


@csrf_exempt
def metrics_view(request: HttpRequest) -> HttpResponse:
    """GET /metrics: every process's counters and the database gauges, in the Prometheus text format."""
    if not _authorized(request):
        response = HttpResponse("Send Authorization: Bearer <PONTE_METRICS_TOKEN>.\n", status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    if request.method not in ("GET", "HEAD"):
        return HttpResponse(status=405, headers={"Allow": "GET, HEAD"})
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(metrics_dir()))
    registry.register(_Readings())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


@register(Tags.security)
def metrics_token_check(app_configs: object = None, **kwargs: object) -> list[CheckWarning]:
    """With DEBUG off, an open /metrics tells anyone who reaches it the traffic and the queue."""
    if settings.DEBUG or settings.PONTE_METRICS_TOKEN:
        return []
    return [
        CheckWarning(
            "DEBUG is off and PONTE_METRICS_TOKEN is not set: GET /metrics is open to anyone who reaches it.",
            hint="Set PONTE_METRICS_TOKEN to a long random string; Prometheus sends it as a Bearer token.",
            id="ponte.W010",
        )
    ]
