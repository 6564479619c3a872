"""The Copom meeting calendar, kept as data: Focus publishes its Selic expectations per meeting
(`Reuniao` = "R8/2026") without dates. The dates come from the calendar BCB publishes (read by the
daily refresh, `bonds.providers.copom`); `copom_calendar.json` beside this module is the fallback when
that source could not be read. A meeting Focus names whose date is not published yet is placed at an
estimated date: the same meeting of the previous year plus 52 weeks (Copom meets on the same weekday
every six or seven weeks, so the year-on-year shift is about 52 weeks), flagged as estimated.
Pure Python (no Django)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from bonds.finance.daycount import next_business_day

_FALLBACK = json.loads((Path(__file__).with_name("copom_calendar.json")).read_text(encoding="utf-8"))
COPOM_SOURCE: str = _FALLBACK["source"]
# The decision (second) day of each ordinary meeting: the new target applies from the next day.
COPOM_MEETINGS: dict[str, date] = {
    code: date.fromisoformat(day) for code, day in _FALLBACK["meetings"].items()
}
# Copom holds eight ordinary meetings a year (since 2006): a year's calendar is whole with eight.
MEETINGS_PER_YEAR = 8
ESTIMATE_SHIFT = timedelta(weeks=52)
_MEETING = re.compile(r"^R(\d)/(\d{4})$")


def meeting_key(code: str) -> tuple[int, int] | None:
    """("R8/2026") -> (2026, 8), the order of meetings; None for anything else."""
    match = _MEETING.match(code.strip())
    return None if match is None else (int(match.group(2)), int(match.group(1)))


def meeting_date(code: str, calendar: Mapping[str, date] | None = None) -> date | None:
    """The decision day of a meeting, or None when the calendar does not have it (yet)."""
    return (COPOM_MEETINGS if calendar is None else calendar).get(code.strip())


def meetings_from_decision_days(days: Iterable[date]) -> dict[str, date]:
    """Name the decision days of BCB's calendar R1..R8 within each year. Only years with all eight
    ordinary meetings are kept: a partial year could not be numbered with certainty."""
    by_year: dict[int, list[date]] = {}
    for day in sorted(set(days)):
        by_year.setdefault(day.year, []).append(day)
    return {
        f"R{number}/{year}": day
        for year, decided in sorted(by_year.items())
        if len(decided) == MEETINGS_PER_YEAR
        for number, day in enumerate(decided, start=1)
    }


def calendar_with_fallback(published: Mapping[str, str | date] | None) -> dict[str, date]:
    """The fallback data file overlaid with the calendar a refresh read from BCB (ISO strings or
    dates, as stored)."""
    calendar = dict(COPOM_MEETINGS)
    for code, day in (published or {}).items():
        calendar[code] = day if isinstance(day, date) else date.fromisoformat(str(day))
    return calendar


@dataclass(frozen=True)
class DatedMeeting:
    code: str
    day: date
    estimated: bool


def dated_meeting(code: str, calendar: Mapping[str, date], *, depth: int = 5) -> DatedMeeting | None:
    """The meeting's decision day from the calendar; else estimated from the same meeting of an
    earlier year (plus 52 weeks a year, up to `depth` years back); None when nothing is near."""
    code = code.strip()
    if code in calendar:
        return DatedMeeting(code, calendar[code], False)
    key = meeting_key(code)
    if key is None or depth <= 0:
        return None
    year, number = key
    earlier = dated_meeting(f"R{number}/{year - 1}", calendar, depth=depth - 1)
    if earlier is None:
        return None
    # Copom decides on a business day: an estimate on a weekend or a holiday (2 November 2027) moves to
    # the next one.
    return DatedMeeting(code, next_business_day(earlier.day + ESTIMATE_SHIFT), True)


def has_year(calendar: Mapping[str, date], year: int) -> bool:
    return any(day.year == year for day in calendar.values())


# Where a meeting's target on the path comes from: its own Focus median, the Focus year-end median (at
# the year's last meeting: the target the year ends with), or the previous meeting's target, kept
# (Focus does not name the meeting).
FOCUS_MEETING, FOCUS_YEAR_END, KEPT = "focus-meeting", "focus-year-end", "kept"


@dataclass(frozen=True)
class PathMeeting:
    """A meeting on the projected path: its decision day, the target from the next day, and whence."""

    code: str
    day: date
    estimated: bool
    target: float
    source: str


def meetings_on_path(
    *,
    calendar: Mapping[str, date],
    medians: Mapping[str, float],
    year_end: Mapping[int, float],
    after: date,
    current: float | None,
) -> list[PathMeeting]:
    """Every ordinary meeting (eight a year) decided on or after `after`, through the last year Focus
    has a median for, dated by the calendar or estimated: each with its Focus median as published;
    the last meeting of a year without one takes the year-end median as published; any other meeting
    Focus does not name keeps the previous target (flagged `kept`)."""
    years = [year for year, _ in filter(None, map(meeting_key, medians))] + list(year_end)
    target, path = current, []
    for year in range(after.year, max([after.year, *years]) + 1):
        for number in range(1, MEETINGS_PER_YEAR + 1):
            dated = dated_meeting(f"R{number}/{year}", calendar)
            if dated is None or dated.day < after:
                continue  # held already (SGS's current target is the fact), or too far from any date
            if dated.code in medians:
                target, source = medians[dated.code], FOCUS_MEETING
            elif number == MEETINGS_PER_YEAR and year in year_end:
                target, source = year_end[year], FOCUS_YEAR_END
            else:
                source = KEPT
            if target is not None:
                path.append(PathMeeting(dated.code, dated.day, dated.estimated, target, source))
    return path
