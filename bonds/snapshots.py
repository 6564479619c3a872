"""The day's projections recorded: a ProjectionSnapshot from what the Focus, SGS and Copom calendar
providers read, a failed source keeping the previous snapshot's figures."""

from __future__ import annotations

from datetime import date

from django.db import transaction

from bonds import finance
from bonds.models import ProjectionSnapshot
from bonds.providers.base import CurrentRates, FocusMedians, FocusMeetings, TrValue
from bonds.providers.copom import CopomCalendar


def calendar_merged(stored: dict[str, str], calendar: CopomCalendar) -> dict[str, str]:
    """The stored Copom calendar with every year BCB now lists whole replaced by what it lists."""
    years = set(calendar.years)
    kept = {code: day for code, day in stored.items() if int(code[-4:]) not in years}
    read = {code: day.isoformat() for code, day in calendar.meetings.items()}
    return dict(sorted({**kept, **read}.items(), key=lambda item: finance.meeting_key(item[0]) or (0, 0)))


@transaction.atomic
def projection_snapshot_record(
    *,
    day: date,
    focus_medians: FocusMedians | None,
    current: CurrentRates | None,
    meetings: FocusMeetings | None = None,
    calendar: CopomCalendar | None = None,
    tr: TrValue | None = None,
) -> tuple[ProjectionSnapshot, bool]:
    """Record the day's projections; a source that failed keeps the previous snapshot's figures.
    Returns the snapshot and whether anything changed."""
    previous = ProjectionSnapshot.objects.filter(date__lte=day).order_by("-date").first()
    names = (
        "selic_by_year",
        "ipca_by_year",
        "focus_date",
        "selic_by_meeting",
        "meetings_focus_date",
        "selic_current",
        "cdi_current",
        "ipca_12m",
        "cdi_gap",
        "tr_monthly",
        "tr_date",
        "copom_calendar",
    )
    values = {name: getattr(previous, name) if previous else None for name in names}
    for name in ("selic_by_year", "ipca_by_year", "selic_by_meeting", "copom_calendar"):
        values[name] = values[name] or {}
    if calendar is not None:
        values["copom_calendar"] = calendar_merged(values["copom_calendar"], calendar)
    if meetings is not None:
        values["selic_by_meeting"] = dict(meetings.selic_by_meeting)
        values["meetings_focus_date"] = meetings.survey_date
    if focus_medians is not None:
        values["selic_by_year"] = {str(year): value for year, value in focus_medians.selic_by_year.items()}
        values["ipca_by_year"] = {str(year): value for year, value in focus_medians.ipca_by_year.items()}
        values["focus_date"] = focus_medians.survey_date
    if current is not None:
        for name, value in (
            ("selic_current", current.selic_target),
            ("cdi_current", current.cdi),
            ("ipca_12m", current.ipca_12m),
            ("cdi_gap", current.cdi_gap),
        ):
            if value is not None:
                values[name] = value
    if tr is not None:
        values["tr_monthly"], values["tr_date"] = tr.monthly_pct, tr.day
    snapshot = ProjectionSnapshot.objects.filter(date=day).first()
    if snapshot is not None and all(getattr(snapshot, name) == value for name, value in values.items()):
        return snapshot, False
    snapshot, _ = ProjectionSnapshot.objects.update_or_create(date=day, defaults=values)
    return snapshot, True
