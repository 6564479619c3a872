"""`manage.py check`: from July on, warn when next year's Copom calendar is missing (BCB publishes it
each June; until it is read, next year's meetings sit at estimated dates)."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.checks import CheckMessage, Warning, register
from django.utils import timezone

from bonds import finance
from bonds.models import ProjectionSnapshot

# BCB publishes the next year's calendar in June: a missing one is worth a warning from July.
CALENDAR_DUE_MONTH = 7


def copom_calendar_warnings(*, today: date, published: dict[str, Any] | None) -> list[CheckMessage]:
    if today.month < CALENDAR_DUE_MONTH:
        return []
    calendar = finance.calendar_with_fallback(published)
    if finance.has_year(calendar, today.year + 1):
        return []
    return [
        Warning(
            f"The Copom calendar for {today.year + 1} is missing: its meetings are placed at estimated "
            "dates (the same meeting a year before plus 52 weeks).",
            # The hint works offline first: a newcomer's machine may have no internet.
            hint="Nothing stops: the estimates are used until the dates are known. Offline, add the "
            "decision days to bonds/finance/copom_calendar.json; online, `manage.py refresh_bonds` reads "
            "them from BCB (BONDS_COPOM_CALENDAR_URL).",
            id="bonds.W001",
        )
    ]


@register("bonds")
def copom_calendar_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    try:
        snapshot = ProjectionSnapshot.objects.only("copom_calendar").order_by("-date").first()
        published = None if snapshot is None else snapshot.copom_calendar
    except Exception:  # no database, not migrated, or none allowed: the data file alone
        published = None
    return copom_calendar_warnings(today=timezone.localdate(), published=published)
