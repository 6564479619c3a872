"""Reading settings from the environment: typed readers, DATABASE_URL, and where files live."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_path(name: str, default: Path) -> Path:
    """An absolute path (relative ones are taken from the checkout, not the working directory)."""
    raw = os.environ.get(name, "").strip()
    return BASE_DIR / Path(raw).expanduser() if raw else default


# Every file a process keeps between runs (SQLite databases, the filesystem broker, media, demo keys,
# metrics) lives under this folder; the test suite gives each run its own (tests/isolation.py), so it
# never shares a broker or a file with a `make run` in the same checkout.
VAR_DIR = env_path("PONTE_VAR_DIR", BASE_DIR / "var")
VAR_DIR.mkdir(parents=True, exist_ok=True)
# Prometheus multiprocess mode (core/metrics.py): every process writes its counts here. Read by
# prometheus-client when it is imported, so it is set with the paths, before anything imports it.
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(VAR_DIR / "metrics"))


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}.")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {raw!r}.") from None


def env_str(name: str, default: str) -> str:
    """The variable as given (an empty value stays empty), or `default` when it is not set."""
    raw = os.environ.get(name)
    return default if raw is None else raw


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number; got {raw!r}.") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_from_url(url: str) -> dict:
    """Turn postgres://user:pass@host:port/name or sqlite:///path into a DATABASES entry."""
    parsed = urlparse(url)
    if parsed.scheme in {"postgres", "postgresql", "pgsql"}:
        options = {key: values[-1] for key, values in parse_qs(parsed.query).items()}
        return {
            "ENGINE": "core.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")) or "ponte",
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "OPTIONS": options,
            # Persistent connections: a worker delivering many small tasks must not reconnect for each.
            "CONN_MAX_AGE": env_int("DB_CONN_MAX_AGE", 60),
            "CONN_HEALTH_CHECKS": True,
            "TEST": {"NAME": "test_" + (unquote(parsed.path.lstrip("/")) or "ponte")},
        }
    if parsed.scheme == "sqlite":
        path = unquote(parsed.path)
        return sqlite_database(Path(path[1:] if path.startswith("//") else path))
    raise ImproperlyConfigured(
        f"DATABASE_URL must start with postgres:// or sqlite://; got scheme {parsed.scheme!r}."
    )


def sqlite_database(path: Path) -> dict:
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        # WAL and a busy timeout let web, worker and beat share one file without "database is locked".
        # Kept open like PostgreSQL's: reopening runs the PRAGMAs below again for every task.
        "CONN_MAX_AGE": env_int("DB_CONN_MAX_AGE", 60),
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
        # A file, not :memory:, so a Celery worker started by a test sees the test database.
        "TEST": {"NAME": str(VAR_DIR / f"test_ponte_{os.getpid()}.sqlite3")},
    }
