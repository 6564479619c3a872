"""ANBIMA business-day calendar: national holidays (with Easter-based ones) and business-day counts.
Pure Python (no Django)."""

from __future__ import annotations

import bisect
from datetime import date, timedelta
from functools import lru_cache

BUSINESS_DAYS_PER_YEAR = 252


def easter(year: int) -> date:
    """Gregorian Easter Sunday (anonymous algorithm, Meeus/Jones/Butcher)."""
    a = year % 19
    b, c = divmod(year, 100)
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    ell = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * ell) // 451
    month, day = divmod(h + ell - 7 * m + 114, 31)
    return date(year, month, day + 1)


@lru_cache(maxsize=512)
def holidays(year: int) -> frozenset[date]:
    """ANBIMA national holidays of a year: fixed dates, Carnival Monday and Tuesday, Good Friday,
    Corpus Christi, and 20 November (Consciência Negra) from 2024."""
    sunday = easter(year)
    days = {
        date(year, 1, 1),
        sunday - timedelta(days=48),  # Carnival Monday
        sunday - timedelta(days=47),  # Carnival Tuesday
        sunday - timedelta(days=2),  # Good Friday
        date(year, 4, 21),
        date(year, 5, 1),
        sunday + timedelta(days=60),  # Corpus Christi
        date(year, 9, 7),
        date(year, 10, 12),
        date(year, 11, 2),
        date(year, 11, 15),
        date(year, 12, 25),
    }
    if year >= 2024:
        days.add(date(year, 11, 20))
    return frozenset(days)


@lru_cache(maxsize=512)
def _weekday_holidays(year: int) -> tuple[date, ...]:
    return tuple(sorted(day for day in holidays(year) if day.weekday() < 5))


def is_business_day(day: date) -> bool:
    return day.weekday() < 5 and day not in holidays(day.year)


def next_business_day(day: date) -> date:
    while not is_business_day(day):
        day += timedelta(days=1)
    return day


def settlement_date(order_day: date) -> date:
    """The day an order placed on `order_day` settles: that day when it is an ANBIMA business day,
    else the next one (an order on a Saturday or a holiday moves money on the next business day).
    Every figure counts its days, income-tax and IOF brackets and coupons from it."""
    return next_business_day(order_day)


def _weekdays(start: date, end: date) -> int:
    """Monday-to-Friday days in [start, end)."""
    span = (end - start).days
    if span <= 0:
        return 0
    weeks, rest = divmod(span, 7)
    first = start.weekday()
    return weeks * 5 + sum(1 for offset in range(rest) if (first + offset) % 7 < 5)


def business_days_by_year(start: date, end: date) -> dict[int, int]:
    """Business days in [start, end) per calendar year (ANBIMA calendar)."""
    result: dict[int, int] = {}
    for year in range(start.year, end.year + 1):
        low = max(start, date(year, 1, 1))
        high = min(end, date(year + 1, 1, 1))
        if high <= low:
            continue
        listed = _weekday_holidays(year)
        inside = bisect.bisect_left(listed, high) - bisect.bisect_left(listed, low)
        count = _weekdays(low, high) - inside
        if count:
            result[year] = count
    return result


def business_days(start: date, end: date) -> int:
    """du: business days from start (inclusive) to end (exclusive)."""
    return sum(business_days_by_year(start, end).values())
