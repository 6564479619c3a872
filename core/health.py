"""Liveness and readiness probes."""

from __future__ import annotations

import uuid

from celery import current_app as celery_app
from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET


@transaction.non_atomic_requests
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is up and serving requests. Under `make run`, also which start it belongs to (`run`):
    the banner waits for its own token, not for whatever answers on the port."""
    if settings.PONTE_RUN_TOKEN:
        return JsonResponse({"status": "ok", "run": settings.PONTE_RUN_TOKEN})
    return JsonResponse({"status": "ok"})


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _cache() -> None:
    ask_redis = getattr(cache, "probe", None)
    if ask_redis is not None:  # Redis itself, never the per-process fallback that hides its outage
        ask_redis()
        return
    probe = f"readyz:{uuid.uuid4().hex}"
    cache.set(probe, "1", 10)
    if cache.get(probe) != "1":
        raise RuntimeError("value written was not read back")
    cache.delete(probe)


def _broker() -> None:
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)


@transaction.non_atomic_requests
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """Every check names its dependency. Without the database nothing works: 503 "unavailable". Without Redis
    (cache or broker) the API still answers on its fallbacks: 200 "degraded", so a load balancer keeps
    sending traffic while the checks say what is down."""
    checks: dict[str, str] = {}
    for name, probe in (("database", _database), ("cache", _cache), ("broker", _broker)):
        try:
            probe()
            checks[name] = "ok"
        except Exception as exc:  # a probe reports any failure as "not ready", never a 500
            checks[name] = f"error: {type(exc).__name__}: {exc}"[:300]
    if checks["database"] != "ok":
        status, code = "unavailable", 503
    elif any(value != "ok" for value in checks.values()):
        status, code = "degraded", 200
    else:
        status, code = "ok", 200
    return JsonResponse({"status": status, "checks": checks}, status=code)
