"""The Copom meeting calendar, kept as data: Focus publishes its Selic expectations per meeting
(`Reuniao` = "R8/2026") without dates, so the dates come from the calendar BCB publishes each June
for the following year. Add a year's meetings here when BCB publishes them (see docs/bonds.md).
Pure Python (no Django)."""

from __future__ import annotations

import re
from datetime import date

# The second (decision) day of each ordinary meeting: the new target applies from the next day.
COPOM_SOURCE = (
    "BCB, calendar of the ordinary Copom meetings for 2026 (https://www.bcb.gov.br/controleinflacao/copom), "
    "as reported by E-Investidor/Estadão, 'Copom 2026: calendário de reuniões'"
)
COPOM_MEETINGS: dict[str, date] = {
    "R1/2026": date(2026, 1, 28),
    "R2/2026": date(2026, 3, 18),
    "R3/2026": date(2026, 4, 29),
    "R4/2026": date(2026, 6, 17),
    "R5/2026": date(2026, 8, 5),
    "R6/2026": date(2026, 9, 16),
    "R7/2026": date(2026, 11, 4),
    "R8/2026": date(2026, 12, 9),
}
_MEETING = re.compile(r"^R(\d)/(\d{4})$")


def meeting_key(code: str) -> tuple[int, int] | None:
    """("R8/2026") -> (2026, 8), the order of meetings; None for anything else."""
    match = _MEETING.match(code.strip())
    return None if match is None else (int(match.group(2)), int(match.group(1)))


def meeting_date(code: str, calendar: dict[str, date] | None = None) -> date | None:
    """The decision day of a meeting, or None when the calendar does not have it (yet)."""
    return (COPOM_MEETINGS if calendar is None else calendar).get(code.strip())
