"""Logging filters that keep routine lines out of the console."""

from __future__ import annotations

import logging
import re

# Periodic housekeeping that runs every few seconds: its "sending due task", "received" and
# "succeeded" lines would bury everything else. Failures are still logged (WARNING and above).
ROUTINE_TASKS = (
    "webhooks.sweep_deliveries",
    "integrations.chatwoot.sweep",
    "messaging.channels.inbound_sweep",
)


class RoutineTasks(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            return True
        message = record.getMessage()
        return not any(task in message for task in ROUTINE_TASKS)


# Query parameters that carry a key: the live socket's apiKey, the bonds interface's key.
_QUERY_KEY = re.compile(r"([?&](?:apiKey|key)=)[^&\s\"]*", re.IGNORECASE)


class QueryKeyRedaction(logging.Filter):
    """Masks keys given in a logged URL's query string (`?apiKey=...` becomes `?apiKey=***`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args and isinstance(record.args, tuple):
            record.args = tuple(
                _QUERY_KEY.sub(r"\1***", arg) if isinstance(arg, str) else arg for arg in record.args
            )
        elif isinstance(record.msg, str):
            record.msg = _QUERY_KEY.sub(r"\1***", record.msg)
        return True
