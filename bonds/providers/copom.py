"""The Copom meeting calendar BCB publishes: the "Reuniões do Copom" agenda of the BCB site, exported
as iCalendar (`https://www.bcb.gov.br/api/exportarics/sitebcb/agendaics?lista=Reuniões do Copom`, the
source the `pyield` package reads for its Copom calendar). One VEVENT per meeting day: each ordinary
meeting is two consecutive days, the decision on the second. Meetings are named R1..R8 within each
year whose eight meetings are all listed (Focus names them so: `Reuniao` = "R1/2027")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from bonds.finance.copom import meetings_from_decision_days
from bonds.providers.base import ProviderError, http_get

WHAT = "BCB Copom calendar"
_EVENT = re.compile(r"BEGIN:VEVENT\r?\n(.*?)END:VEVENT", re.S)
_START = re.compile(r"^DTSTART(?:;[^:\r\n]*)?:(\d{8})(?:T\d{6}Z?)?\r?$", re.M)


@dataclass(frozen=True)
class CopomCalendar:
    """Decision days by meeting (`R1/2027` -> date) and the years the calendar lists whole."""

    meetings: dict[str, date] = field(default_factory=dict)

    @property
    def years(self) -> list[int]:
        return sorted({day.year for day in self.meetings.values()})


def meeting_days(text: str) -> list[date]:
    """Every meeting day of the iCalendar text (folded lines unfolded first, RFC 5545 3.1)."""
    unfolded = re.sub(r"\r?\n[ \t]", "", text)
    if not unfolded.lstrip().startswith("BEGIN:VCALENDAR") or "END:VCALENDAR" not in unfolded:
        raise ProviderError(f"{WHAT}: the answer is not an iCalendar (no VCALENDAR)")
    days = []
    for event in _EVENT.findall(unfolded):
        match = _START.search(event)
        if match is None:
            raise ProviderError(f"{WHAT}: an event has no DTSTART date")
        text_day = match.group(1)
        days.append(date(int(text_day[:4]), int(text_day[4:6]), int(text_day[6:])))
    return sorted(set(days))


def decision_days(days: list[date]) -> list[date]:
    """The last day of each run of consecutive meeting days (the decision day)."""
    decided = []
    for position, day in enumerate(days):
        following = days[position + 1] if position + 1 < len(days) else None
        if following != day + timedelta(days=1):
            decided.append(day)
    return decided


def parse(content: bytes) -> CopomCalendar:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = content.decode("latin-1")
    meetings = meetings_from_decision_days(decision_days(meeting_days(text)))
    if not meetings:
        raise ProviderError(f"{WHAT}: no year with all eight ordinary meetings in the calendar")
    return CopomCalendar(meetings=meetings)


def fetch(*, url: str, timeout: float) -> CopomCalendar:
    return parse(http_get(url, timeout=timeout, what=WHAT).content)
