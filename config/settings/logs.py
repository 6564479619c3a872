"""Logging: the format (plain or JSON lines), one clock per line, and the one console handler every
logger's lines end at, with the request id and the secrets' redaction."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from core.env import env_bool, env_str
from core.logs import PLAIN_FORMAT, without_clock

# Lines as text ("plain") or one JSON object each ("json"); both carry the request id (core/logs.py).
PONTE_LOG_FORMAT = env_str("PONTE_LOG_FORMAT", "plain").strip().lower() or "plain"
if PONTE_LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured(f"PONTE_LOG_FORMAT must be plain or json; got {PONTE_LOG_FORMAT!r}.")
# Off: plain lines carry no time of their own (`make run` sets it: honcho's prefix is the one clock).
PONTE_LOG_CLOCK = env_bool("PONTE_LOG_CLOCK", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": PLAIN_FORMAT if PONTE_LOG_CLOCK else without_clock(PLAIN_FORMAT)},
        "json": {"()": "core.logs.JsonFormatter"},
    },
    "filters": {
        "routine_tasks": {"()": "core.logfilters.RoutineTasks"},
        "request_id": {"()": "core.logs.RequestIdFilter"},
        "secrets": {"()": "core.logfilters.SecretRedaction"},
    },
    "handlers": {
        # Every logger's lines end here (nothing else prints): the one place keys and tokens are hidden
        # from lines Ponte does not write itself (Django's "Bad Request: /instances/<key>/instance").
        "console": {
            "class": "logging.StreamHandler",
            "formatter": PONTE_LOG_FORMAT,
            "filters": ["request_id", "secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        # Django's default config gives `django` a console handler of its own (with DEBUG on), so each
        # line (every 404) came out twice: once there and once at the root. Only the root prints.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.db.backends": {"level": "WARNING"},
        "celery.beat": {"filters": ["routine_tasks"]},
        "celery.worker.strategy": {"filters": ["routine_tasks"]},
        "celery.app.trace": {"filters": ["routine_tasks"]},
        # The MCP SDK logs "Terminating session: None" at INFO for every stateless /bonds/mcp call.
        "mcp.server.streamable_http": {"level": "WARNING"},
    },
}
if PONTE_LOG_FORMAT == "json":
    # uvicorn set up its own console lines before it imported Ponte: JSON lines are Ponte's handler's.
    LOGGING["loggers"]["uvicorn"] = {"handlers": ["console"], "level": "INFO", "propagate": False}
    # Its access lines stay off (Ponte logs each request itself, core/observe.py): configuring its parent
    # would otherwise hand them a handler.
    LOGGING["loggers"]["uvicorn.access"] = {"handlers": [], "level": "WARNING", "propagate": False}
