"""One way to write a moment in the webhooks' JSON and headers: ISO 8601 in UTC, milliseconds, "Z"."""

from __future__ import annotations

from datetime import UTC, datetime


def iso_millis(moment: datetime) -> str:
    """`2026-03-10T02:30:00.123Z` for an aware datetime, whatever its time zone."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_millis_of_ms(epoch_ms: int) -> str:
    """The same for a moment given in milliseconds since the epoch (how events store theirs)."""
    return iso_millis(datetime.fromtimestamp(epoch_ms / 1000, tz=UTC))
