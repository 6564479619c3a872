"""One way to write a moment in the webhooks' JSON and headers (ISO 8601 in UTC, milliseconds, "Z"), and
one way on the pages customers read (local_time_text)."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone
from django.utils.formats import date_format


def iso_millis(moment: datetime) -> str:
    """`2026-03-10T02:30:00.123Z` for an aware datetime, whatever its time zone."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_millis_of_ms(epoch_ms: int) -> str:
    """The same for a moment given in milliseconds since the epoch (how events store theirs)."""
    return iso_millis(datetime.fromtimestamp(epoch_ms / 1000, tz=UTC))


def local_time_text(moment: datetime) -> str:
    """How a customer reads a moment on a page: in the site's time zone (TIME_ZONE, São Paulo), in the
    active language's short date and time format, with the zone's UTC offset written out
    (`2026-11-26 14:03:05 -03:00`, `26/11/2026 14:03:05 -03:00`), so no time on a page is ambiguous."""
    local = timezone.localtime(moment)
    offset = local.strftime("%z")  # "-0300"
    return f"{date_format(local, 'SHORT_DATETIME_FORMAT')} {offset[:3]}:{offset[3:]}"
