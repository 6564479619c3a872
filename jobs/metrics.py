"""What any job table tells operators at scrape time (core/metrics.py): its queue depth and dead letters."""

from __future__ import annotations

from core.metrics import Reading
from jobs.table import JobTable


def table_readings(table: JobTable, prefix: str, *, due_help: str, dead_help: str) -> list[Reading]:
    """At scrape time, for any client's job table: `<prefix>_queue_depth` (jobs due and not yet
    attempted) and `<prefix>_dead_letters` (the tables' partial and status indexes)."""
    return [
        Reading(f"{prefix}_queue_depth", due_help, values={(): table.due_count()}),
        Reading(f"{prefix}_dead_letters", dead_help, values={(): table.dead_count()}),
    ]
