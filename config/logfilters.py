"""Logging filters that keep routine lines out of the console."""

from __future__ import annotations

import logging

# Periodic housekeeping that runs every few seconds: its "sending due task", "received" and
# "succeeded" lines would bury everything else. Failures are still logged (WARNING and above).
ROUTINE_TASKS = ("webhooks.sweep_deliveries", "integrations.chatwoot.sweep")


class RoutineTasks(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            return True
        message = record.getMessage()
        return not any(task in message for task in ROUTINE_TASKS)
