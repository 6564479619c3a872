"""System check: the configured messaging engine imports and honours the contract."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, register

from messaging.engines import NotAnEngine, engine_class


@register()
def check_engine(app_configs, **kwargs) -> list:
    path = settings.MESSAGING_ENGINE
    try:
        engine_class(path)
    except NotAnEngine:
        return [
            Error(
                f"MESSAGING_ENGINE {path!r} is not a subclass of messaging.engines.base.Engine.",
                hint="Point MESSAGING_ENGINE at an Engine class.",
                id="messaging.E002",
            )
        ]
    except ImportError as exc:
        return [
            Error(
                f"MESSAGING_ENGINE {path!r} cannot be imported: {exc}.",
                hint="Set MESSAGING_ENGINE to a dotted path such as messaging.engines.sandbox.SandboxEngine.",
                id="messaging.E001",
            )
        ]
    if path == REMOTE:
        return remote_engine_errors(
            redis_url=settings.ENGINE_REDIS_URL, database_engine=settings.DATABASES["default"]["ENGINE"]
        )
    return []


REMOTE = "messaging.engines.remote.RemoteEngine"


def remote_engine_errors(*, redis_url: str, database_engine: str) -> list:
    errors = []
    if not redis_url:
        errors.append(
            Error(
                "RemoteEngine needs Redis for its command bus and leases.",
                hint="Set REDIS_URL (or ENGINE_REDIS_URL).",
                id="messaging.E003",
            )
        )
    if database_engine.endswith("sqlite3"):
        # A web request holds SQLite's one write lock for its whole transaction while it waits for the
        # engine process, which must write the session's events: they would wait for each other.
        errors.append(
            Error(
                "RemoteEngine needs PostgreSQL: engine processes write events while web requests wait.",
                hint="Set DATABASE_URL to a PostgreSQL database, or keep the embedded sandbox engine.",
                id="messaging.E004",
            )
        )
    return errors
