"""Sessions by driver and status, read at scrape time (core/metrics.py)."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count

from core.metrics import Reading
from messaging.channels import OFFICIAL_PROVIDERS
from messaging.models import Session

_STATUSES = {choice.value for choice in Session.Status}


def driver_of(*, engine: str, provider: str, official: bool) -> str:
    """A short, fixed name: the official channel's provider, or the engine (the engine processes' driver
    for RemoteEngine), never a dotted path or a session's own value."""
    if official:
        return provider if provider in OFFICIAL_PROVIDERS else "official"
    name = (engine or settings.MESSAGING_ENGINE).rsplit(".", 1)[-1]
    if name == "RemoteEngine":
        return settings.ENGINE_DRIVER if settings.ENGINE_DRIVER in ("sandbox", "whatsapp") else "remote"
    return {"SandboxEngine": "sandbox"}.get(name, "custom")


def collect() -> list[Reading]:
    values: dict[tuple[str, ...], float] = {}
    rows = Session.objects.values("engine", "provider", "official", "status").annotate(n=Count("id"))
    for row in rows.order_by():
        driver = driver_of(engine=row["engine"], provider=row["provider"], official=row["official"])
        status = row["status"] if row["status"] in _STATUSES else "other"
        values[(driver, status)] = values.get((driver, status), 0) + row["n"]
    return [Reading("ponte_engine_sessions", "Messaging sessions.", ("driver", "status"), values)]
