"""Log lines: the request id every line carries, and the JSON format (PONTE_LOG_FORMAT=json).

A request id is chosen once per HTTP request by the web entry point (core/observe.py): a sane
`X-Request-Id` sent by a trusted proxy (PONTE_TRUSTED_PROXIES), or a new one. It lives in a context
variable, so everything the request runs (Django on a pool thread, the MCP tools) logs it; deliveries
the request causes store it on their row (`Delivery.request_id`), and Celery messages published while it
is set carry it in a header (config/celery.py), so the worker's lines about them carry it too.

Lines never carry a key, a secret or a message body: structured lines are built from chosen fields
(`extra={"fields": {...}}`), never from request bodies, headers or query strings; and every handler that
prints has core.logfilters.SecretRedaction, for the lines other libraries write (Django's
"Bad Request: <path>", tracebacks).
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from core.logfilters import redact_handlers

request_id_var: ContextVar[str] = ContextVar("ponte_request_id", default="")

# Letters, digits and a few separators, as proxies and tracing systems make them (UUIDs, hex, base64url).
_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+/=-]{0,63}")


def current_request_id() -> str:
    """The request id of the request (or task) being handled; "" outside one. Also the default of
    `Delivery.request_id`, so deliveries written while handling a request remember it."""
    return request_id_var.get()


def new_request_id() -> str:
    return uuid.uuid4().hex


def sane_request_id(value: str | None) -> str | None:
    """`value` when it can be logged and echoed as it is (short, plain characters); otherwise None."""
    if value and _SANE_REQUEST_ID.fullmatch(value):
        return value
    return None


class RequestIdFilter(logging.Filter):
    """Gives every record a `request_id` (the current one, or "-"), unless the line names its own."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            record.request_id = request_id_var.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, then the line's fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or request_id_var.get()
        line["request_id"] = request_id if request_id and request_id != "-" else None
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            # exc_text when a filter already rendered (and redacted) the traceback.
            line["exception"] = record.exc_text or self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"
# Celery's own layout (worker and beat), with the request id.
CELERY_PLAIN_FORMAT = "[%(asctime)s: %(levelname)s/%(processName)s] [%(request_id)s] %(message)s"


def without_clock(layout: str) -> str:
    """A plain layout minus its time. Under `make run` honcho prefixes every line with its own clock, so
    a second one (in another time zone) made two clocks per line (PONTE_LOG_CLOCK=off, issue 45)."""
    return layout.replace("%(asctime)s: ", "").replace("%(asctime)s ", "")


def celery_handlers_configured(logger: logging.Logger, *, json_lines: bool, clock: bool = True) -> None:
    """Celery replaces the root logger's handlers with its own: give them the request id, the secrets'
    redaction and, with PONTE_LOG_FORMAT=json, the JSON format."""
    layout = CELERY_PLAIN_FORMAT if clock else without_clock(CELERY_PLAIN_FORMAT)
    for handler in logger.handlers:
        if not any(isinstance(f, RequestIdFilter) for f in handler.filters):
            handler.addFilter(RequestIdFilter())
        handler.setFormatter(JsonFormatter() if json_lines else logging.Formatter(layout))
    redact_handlers(logger)
