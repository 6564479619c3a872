"""The configured event sinks, run unchanged, with a note of which SQL statements each call ran.

The statement tests (test_send_path.py) pin what messaging runs around the sinks (the session, the
quota, the engine's state, the message row) apart from what the sinks run (the outbox's event and
deliveries, the Chatwoot mirror), which other work changes on its own schedule.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.utils.module_loading import import_string

#: (first, end) positions in `connection.queries_log` of each sink call since `counting` began.
spans: list[tuple[int, int]] = []
_sinks: list[Any] = []


def counting(paths: str) -> str:
    """Wrap the sinks `paths` names (a MESSAGING_EVENT_SINK value); returns the value naming the wrapper."""
    _sinks[:] = [import_string(path.strip()) for path in paths.split(",") if path.strip()]
    spans.clear()
    return f"{__name__}.sink"


def sink(**event: Any) -> None:
    first = len(connection.queries_log)
    for one in _sinks:
        one(**event)
    spans.append((first, len(connection.queries_log)))


def split(captured: Any) -> tuple[list[str], list[str]]:
    """The statements a CaptureQueriesContext caught: (outside the sinks, inside them), first words."""
    inside = {i - captured.initial_queries for first, end in spans for i in range(first, end)}
    kinds = [query["sql"].split()[0].upper() for query in captured.captured_queries]
    return (
        [kind for i, kind in enumerate(kinds) if i not in inside],
        [kind for i, kind in enumerate(kinds) if i in inside],
    )
