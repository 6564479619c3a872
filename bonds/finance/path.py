"""The projected index path: the daily Selic target (and the CDI under it) from the Copom meeting
path of the Focus survey, then the year-end medians; IPCA per calendar year. Pure Python (no Django).

The Selic target on a day is
* the current target (SGS 432) until the next Copom meeting;
* each meeting's target from the day after its decision day (the new target applies from then):
  every ordinary meeting, eight a year (`copom.meetings_on_path`: its Focus median as published, the
  year-end median at a year's last meeting, else the previous target kept); flat after the last one;
* with no meeting calendar at all (a projection built by hand), the line from today's target to each
  later year-end median, stepped once a month.
The CDI is the target minus the latest gap observed between the two in SGS (4389 against 432),
0.10 pp when none was observed; the effective Selic is taken equal to the CDI.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cached_property
from itertools import pairwise

# CDI and the effective Selic normally run 0.10 pp below the Selic target: the
# fallback when SGS gave no gap.
DEFAULT_CDI_GAP = 0.0010

ONE_DAY = timedelta(days=1)


def _month_after(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


@dataclass(frozen=True)
class PathStep:
    """One step of the projected path: from `start` on, the Selic target and the CDI under it (the
    effective Selic is taken equal to the CDI); `meeting` is the Copom meeting whose decision starts
    the step ("R1/2027"), None for the current target and for the monthly steps toward the year-end
    medians; `estimated_date` when that meeting's date is not yet in BCB's calendar."""

    start: date
    selic_target: float
    cdi: float
    meeting: str | None = None
    estimated_date: bool = False
    # Whence the meeting's target: "focus-meeting" (its Focus median), "focus-year-end" (the year-end
    # median, at the year's last meeting) or "kept" (Focus does not name it: the previous target).
    median_source: str | None = None


@dataclass(frozen=True)
class Projection:
    """Projected rates (decimals) as taken from BCB Focus and SGS.

    `selic_by_meeting[d]`: the Selic target decided on Copom day `d` (every meeting on the path, eight
    a year: its Focus median, the year-end median at a year's last meeting, or the previous target);
    `selic_by_year[y]`: the year-end Selic target median of y; `ipca_by_year[y]`: the IPCA of y.
    `selic_current` is today's target, `cdi_gap` the observed target - CDI (None: 0.10 pp), `as_of`
    the day the current target was observed (where the line to the year-end medians starts when
    there is no meeting path). `meeting_names[d]` names the meeting decided on `d` ("R1/2027"), says
    whether its date is an estimate (not yet in BCB's calendar) and whence its target.
    """

    selic_by_year: Mapping[int, float] = field(default_factory=dict)
    ipca_by_year: Mapping[int, float] = field(default_factory=dict)
    selic_current: float | None = None
    ipca_12m: float | None = None
    selic_by_meeting: Mapping[date, float] = field(default_factory=dict)
    cdi_gap: float | None = None
    as_of: date | None = None
    meeting_names: Mapping[date, tuple[str, bool, str | None]] = field(default_factory=dict)

    @classmethod
    def flat(cls, *, cdi: float | None = None, ipca: float | None = None) -> Projection:
        """Constant rates: CDI (so the Selic target = CDI + the default gap) and IPCA."""
        selic = None if cdi is None else cdi + DEFAULT_CDI_GAP
        return cls(selic_current=selic, ipca_12m=ipca)

    @property
    def gap(self) -> float:
        return DEFAULT_CDI_GAP if self.cdi_gap is None else self.cdi_gap

    # --- Selic target and CDI ------------------------------------------------------------------

    @cached_property
    def _steps(self) -> tuple[tuple[date, ...], tuple[float, ...], tuple[date | None, ...]] | None:
        """The target as steps: (first days, values, the decision day of the meeting that starts
        each step or None); the first step starts at date.min."""
        meetings = sorted(self.selic_by_meeting.items())
        years = sorted(self.selic_by_year.items())
        current = self.selic_current
        if current is None:
            current = meetings[0][1] if meetings else years[0][1] if years else None
        if current is None:
            return None
        starts, values, decided = [date.min], [current], [None]
        for day, median in meetings:
            starts.append(day + ONE_DAY)
            values.append(median)
            decided.append(day)
        if meetings or not years:
            return tuple(starts), tuple(values), tuple(decided)
        # No meeting calendar at all: the line from today's target to each later year-end median.
        origin = self.as_of or date.min
        anchors = [(origin, current)] + [
            (date(year, 12, 31), median) for year, median in years if date(year, 12, 31) > origin
        ]
        if len(anchors) > 1 and origin != date.min:
            day = origin
            while day <= anchors[-1][0]:
                following = min(_month_after(day), anchors[-1][0] + ONE_DAY)
                starts.append(day)
                values.append(_interpolate(anchors, day + (following - day) / 2))
                decided.append(None)
                day = following
            starts.append(day)
            values.append(anchors[-1][1])
            decided.append(None)
        elif len(anchors) > 1:  # no anchor in time at all: each year's median from 1 January
            for year, median in years:
                starts.append(date(year, 1, 1))
                values.append(median)
                decided.append(None)
        return tuple(starts), tuple(values), tuple(decided)

    def selic_target_on(self, day: date) -> float | None:
        steps = self._steps
        if steps is None:
            return None
        starts, values, _ = steps
        return values[bisect_right(starts, day) - 1]

    def cdi_on(self, day: date) -> float | None:
        target = self.selic_target_on(day)
        return None if target is None else target - self.gap

    def cdi_segments(self, start: date, end: date) -> list[tuple[date, date, float]] | None:
        """[(from, to, CDI)] covering [start, end) with a constant CDI in each; None without a path."""
        steps = self._steps
        if steps is None:
            return None
        starts, values, _ = steps
        segments = []
        position = bisect_right(starts, start) - 1
        low = start
        while low < end:
            high = starts[position + 1] if position + 1 < len(starts) else end
            high = min(high, end)
            segments.append((low, high, values[position] - self.gap))
            low, position = high, position + 1
        return segments

    def path_from(self, start: date) -> list[PathStep]:
        """The steps of the target (and the CDI under it) from `start` on, each applying until the
        next one; the last one applies from then on. Empty without a path."""
        steps = self._steps
        if steps is None:
            return []
        starts, values, decided = steps
        first = bisect_right(starts, start) - 1
        path = []
        for position in range(first, len(starts)):
            day = decided[position]
            name, estimated, source = (None, False, None)
            if day is not None:
                name, estimated, source = self.meeting_names.get(day, (None, False, None))
            path.append(
                PathStep(
                    start=max(start, starts[position]),
                    selic_target=values[position],
                    cdi=values[position] - self.gap,
                    meeting=name,
                    estimated_date=estimated,
                    median_source=source,
                )
            )
        return path

    # --- IPCA ----------------------------------------------------------------------------------

    def ipca(self, year: int) -> float | None:
        """IPCA of a year: its Focus median; before the first median the last 12 months (else the
        first median); after the last one, the last median repeats."""
        by_year = self.ipca_by_year
        if not by_year:
            return self.ipca_12m
        if year in by_year:
            return by_year[year]
        years = sorted(by_year)
        if year < years[0]:
            return self.ipca_12m if self.ipca_12m is not None else by_year[years[0]]
        return by_year[max(y for y in years if y < year)]


def _interpolate(anchors: list[tuple[date, float]], day: date) -> float:
    for (low_day, low), (high_day, high) in pairwise(anchors):
        if day <= high_day:
            share = (day - low_day).days / max(1, (high_day - low_day).days)
            return low + (high - low) * min(1.0, max(0.0, share))
    return anchors[-1][1]
