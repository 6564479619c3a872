"""The savings account (poupança) as a benchmark: what it pays over the next 12 months along the
projected Selic path. Rule (Lei 8.177/1991 art. 12 with Lei 12.703/2012): each monthly anniversary
pays TR plus 0.5% a month while the Selic target is above 8.5% a year, else TR plus 70% of the Selic
target (a year, made monthly). Tax-free for individuals. Pure Python (no Django)."""

from __future__ import annotations

from datetime import date

from bonds.finance.path import Projection

POUPANCA_MONTHLY_ABOVE_THRESHOLD = 0.005
POUPANCA_SELIC_THRESHOLD = 0.085
POUPANCA_SHARE_OF_SELIC = 0.70


def _month_later(day: date, months: int) -> date:
    total = day.year * 12 + day.month - 1 + months
    year, month = divmod(total, 12)
    return date(year, month + 1, min(day.day, 28))


def poupanca_monthly(selic_target: float, tr_monthly: float) -> float:
    """One month's yield for a Selic target on the anniversary day and the month's TR (decimals)."""
    if selic_target > POUPANCA_SELIC_THRESHOLD:
        additional = POUPANCA_MONTHLY_ABOVE_THRESHOLD
    else:
        additional = (1.0 + POUPANCA_SHARE_OF_SELIC * selic_target) ** (1 / 12) - 1.0
    return (1.0 + tr_monthly) * (1.0 + additional) - 1.0


def poupanca_annual_return(projection: Projection, start: date, tr_monthly: float) -> float | None:
    """A deposit made on `start`, over its next 12 anniversaries, each with the Selic target the path
    projects on that day and a constant TR; None without a Selic path."""
    factor = 1.0
    for month in range(12):
        target = projection.selic_target_on(_month_later(start, month))
        if target is None:
            return None
        factor *= 1.0 + poupanca_monthly(target, tr_monthly)
    return factor - 1.0
