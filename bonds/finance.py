"""Bond maths: calendar, income tax, projected index path, gross factor, net and real returns,
payment probability. Pure Python (no Django import), so the MCP server, the refresh and the tests
can all call it directly. Rates are decimals (0.149 is 14.90% a year). Formulas and the worked check
are in docs/bonds.md and ../shared/reference/bonds.md §5.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache

BUSINESS_DAYS_PER_YEAR = 252
# CDI and the effective Selic run 0.10 percentage point below the Selic target (reference §5.2).
CDI_SPREAD_BELOW_SELIC = 0.0010
# B3 custody fee on Tesouro Direto, a year, applied before income tax (reference §4.4).
TESOURO_CUSTODY_FEE = 0.0020
TESOURO_SELIC_CUSTODY_EXEMPT_UP_TO = 10_000.0

INDEX_KINDS = ("cdi*", "cdi+", "ipca*", "ipca+", "selic*", "selic+", "pre")


# --- ANBIMA calendar --------------------------------------------------------------------------------


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


# --- Income tax -----------------------------------------------------------------------------------

# (max calendar days held, rate); Lei 11.033/2004 art. 1. Kept as data: the government may change it.
INCOME_TAX_TABLE: tuple[tuple[int | None, float], ...] = (
    (180, 0.225),
    (360, 0.20),
    (720, 0.175),
    (None, 0.15),
)


def income_tax_rate(calendar_days: int, *, tax_free: bool = False) -> float:
    if tax_free:
        return 0.0
    for limit, rate in INCOME_TAX_TABLE:
        if limit is None or calendar_days <= limit:
            return rate
    raise AssertionError("the table ends with an open bracket")


# --- Projections ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Projection:
    """Projected rates per calendar year (decimals), as taken from BCB Focus and SGS.

    `selic_by_year[y]` is the year-end Selic target median for y; `ipca_by_year[y]` the IPCA of y.
    Years before the first projected year use the current value; years after the last one repeat it.
    """

    selic_by_year: Mapping[int, float] = field(default_factory=dict)
    ipca_by_year: Mapping[int, float] = field(default_factory=dict)
    selic_current: float | None = None
    ipca_12m: float | None = None

    @classmethod
    def flat(cls, *, cdi: float | None = None, ipca: float | None = None) -> Projection:
        """Constant rates: CDI (so Selic target = CDI + 0.10 pp) and IPCA."""
        selic = None if cdi is None else cdi + CDI_SPREAD_BELOW_SELIC
        return cls(selic_current=selic, ipca_12m=ipca)

    @staticmethod
    def _pick(by_year: Mapping[int, float], year: int, current: float | None) -> float | None:
        if not by_year:
            return current
        if year in by_year:
            return by_year[year]
        years = sorted(by_year)
        if year < years[0]:
            return current if current is not None else by_year[years[0]]
        if year > years[-1]:
            return by_year[years[-1]]
        # A gap inside the projected range: the latest year before it.
        return by_year[max(y for y in years if y < year)]

    def selic_target(self, year: int) -> float | None:
        return self._pick(self.selic_by_year, year, self.selic_current)

    def cdi(self, year: int) -> float | None:
        """CDI (= effective Selic) of a year: the Selic target minus 0.10 pp."""
        target = self.selic_target(year)
        return None if target is None else target - CDI_SPREAD_BELOW_SELIC

    def ipca(self, year: int) -> float | None:
        return self._pick(self.ipca_by_year, year, self.ipca_12m)


# --- Gross factor and returns -----------------------------------------------------------------------


def _percent_of(annual: float, share: float, days: int) -> float:
    """Π over `days` of [1 + TDI·p], TDI = (1 + annual)^(1/252) - 1 (B3 DI methodology)."""
    daily = (1.0 + annual) ** (1.0 / BUSINESS_DAYS_PER_YEAR) - 1.0
    return (1.0 + daily * share) ** days


def _compounded(annual: float, days: int) -> float:
    return (1.0 + annual) ** (days / BUSINESS_DAYS_PER_YEAR)


def inflation_factor(per_year: Mapping[int, int], projection: Projection) -> float | None:
    """Projected I_T / I_0 over the business days of each year; None without an IPCA projection."""
    factor = 1.0
    for year, days in per_year.items():
        rate = projection.ipca(year)
        if rate is None:
            return None
        factor *= _compounded(rate, days)
    return factor


def gross_factor(
    index: str, rate: float, per_year: Mapping[int, int], projection: Projection
) -> float | None:
    """Gross growth factor F over the horizon, or None when a needed projection is missing."""
    du = sum(per_year.values())
    if index == "pre":
        return _compounded(rate, du)
    factor = 1.0
    for year, days in per_year.items():
        # cdi and selic: the effective Selic equals the CDI under the model (reference §5.2).
        base = projection.ipca(year) if index.startswith("ipca") else projection.cdi(year)
        if base is None:
            return None
        if index.endswith("*"):
            factor *= _percent_of(base, rate, days)
        elif index.endswith("+"):
            factor *= _compounded(base, days)
        else:
            raise ValueError(f"unknown index kind {index!r}; expected one of {', '.join(INDEX_KINDS)}")
    if index.endswith("+"):
        factor *= _compounded(rate, du)
    return factor


def annualized(factor: float, du: int) -> float:
    return factor ** (BUSINESS_DAYS_PER_YEAR / du) - 1.0


@dataclass(frozen=True)
class Returns:
    du: int
    dc: int
    tax_rate: float
    gross_factor: float | None = None
    net_factor: float | None = None
    gross_annualized: float | None = None
    net_annualized: float | None = None
    real_annualized: float | None = None
    inflation_annualized: float | None = None


def offer_returns(
    *,
    index: str,
    rate: float,
    start: date,
    maturity: date,
    projection: Projection | None,
    tax_free: bool,
    custody_fee: float = 0.0,
) -> Returns:
    """Gross, net (after custody fee and income tax) and real annualized returns of an offer bought
    on `start` and held to `maturity`. Every figure that cannot be computed is None: a maturity today
    or in the past, or a missing projection never raises."""
    if index not in INDEX_KINDS:
        raise ValueError(f"unknown index kind {index!r}; expected one of {', '.join(INDEX_KINDS)}")
    per_year = business_days_by_year(start, maturity)
    du = sum(per_year.values())
    dc = max(0, (maturity - start).days)
    tax = income_tax_rate(dc, tax_free=tax_free)
    if du <= 0:
        return Returns(du=du, dc=dc, tax_rate=tax)
    projection = projection or Projection()
    factor = gross_factor(index, rate, per_year, projection)
    inflation = inflation_factor(per_year, projection)
    inflation_rate = None if inflation is None else annualized(inflation, du)
    if factor is None:
        return Returns(du=du, dc=dc, tax_rate=tax, inflation_annualized=inflation_rate)
    after_fee = factor * (1.0 - custody_fee) ** (dc / 365.0)
    gain = after_fee - 1.0
    net_factor = 1.0 + gain * (1.0 - tax) if gain > 0 else after_fee
    net = annualized(net_factor, du)
    real = None if inflation_rate is None else (1.0 + net) / (1.0 + inflation_rate) - 1.0
    return Returns(
        du=du,
        dc=dc,
        tax_rate=tax,
        gross_factor=factor,
        net_factor=net_factor,
        gross_annualized=annualized(factor, du),
        net_annualized=net,
        real_annualized=real,
        inflation_annualized=inflation_rate,
    )


@dataclass(frozen=True)
class AmountProjection:
    amount: float
    gross_amount: float | None
    custody_fee: float | None
    income_tax: float | None
    net_amount: float | None
    returns: Returns


def project_amount(
    *,
    amount: float,
    index: str,
    rate: float,
    start: date,
    maturity: date,
    projection: Projection | None,
    tax_free: bool,
    custody_fee: float = 0.0,
) -> AmountProjection:
    """What `amount` invested on `start` becomes at maturity: gross, fee, tax and net (in BRL)."""
    result = offer_returns(
        index=index,
        rate=rate,
        start=start,
        maturity=maturity,
        projection=projection,
        tax_free=tax_free,
        custody_fee=custody_fee,
    )
    if result.gross_factor is None or result.net_factor is None:
        return AmountProjection(amount, None, None, None, None, result)
    gross = amount * result.gross_factor
    after_fee = gross * (1.0 - custody_fee) ** (result.dc / 365.0)
    net = amount * result.net_factor
    return AmountProjection(
        amount=amount,
        gross_amount=round(gross, 2),
        custody_fee=round(gross - after_fee, 2),
        income_tax=round(after_fee - net, 2),
        net_amount=round(net, 2),
        returns=result,
    )


# --- Payment probability ------------------------------------------------------------------------------

# S&P Global, 2024 Annual Global Corporate Default and Rating Transition Study, Table 25 (emerging
# markets), average cumulative default rates in % after 1..10 years. AAA and AA are 0 throughout and
# A is given as 0.03 (reference §6.1).
EM_CUMULATIVE_DEFAULT_PCT: dict[str, tuple[float, ...]] = {
    "AAA": (0.0,) * 10,
    "AA": (0.0,) * 10,
    "A": (0.03,) * 10,
    "BBB": (0.10, 0.41, 0.76, 1.17, 1.55, 1.78, 1.91, 2.02, 2.09, 2.11),
    "BB": (0.54, 1.51, 2.55, 3.55, 4.42, 5.09, 5.67, 6.18, 6.64, 7.00),
    "B": (2.98, 6.09, 8.46, 10.45, 11.96, 13.11, 14.14, 15.01, 15.75, 16.52),
    "CCC": (17.58, 22.81, 25.84, 26.52, 27.69, 28.60, 29.37, 30.17, 30.68, 31.04),
}
# Brazilian national scale -> global scale, Austin Rating's table (reference §6.2, option (a)):
# brAAA -> BB+, brAA± -> BB, brA± -> BB-, brBBB± -> B+, brBB± -> B, brB± -> B-, CCC..D identical.
NATIONAL_TO_GLOBAL: dict[str, str] = {
    "AAA": "BB",
    "AA": "BB",
    "A": "BB",
    "BBB": "B",
    "BB": "B",
    "B": "B",
    "CCC": "CCC",
    "CC": "CCC",
    "C": "CCC",
    "D": "D",
}
_MOODYS = {"AAA": "AAA", "AA": "AA", "A": "A", "BAA": "BBB", "BA": "BB", "B": "B", "CAA": "CCC", "CA": "CCC"}


def rating_bucket(rating: str | None, *, national: bool = False) -> str | None:
    """The global letter bucket (AAA, AA, A, BBB, BB, B, CCC, D) a rating string maps to, or None.

    National-scale notations (`brAA+`, `AA+(bra)`, `AA+.br`) go through the national→global table;
    global ones (`BB-`, Moody's `Ba2`) map directly. `national=True` reads a plain notation (`AA`, as
    Liberum and others write it) on the national scale.
    """
    if rating is None:
        return None
    text = rating.strip()
    if not text or text == "-":
        return None
    lowered = text.lower()
    if lowered.startswith("br"):
        text, national = text[2:], True
    elif lowered.endswith("(bra)"):
        text, national = text[:-5], True
    elif lowered.endswith(".br"):
        text, national = text[:-3], True
    letters = "".join(ch for ch in text if ch.isalpha()).upper()
    if not letters:
        return None
    if letters in _MOODYS and any(ch.islower() for ch in text):
        letters = _MOODYS[letters]
    if letters in {"CC", "C", "SD", "RD"}:
        letters = "CCC" if letters in {"CC", "C"} else "D"
    if national:
        return NATIONAL_TO_GLOBAL.get(letters)
    return letters if letters in EM_CUMULATIVE_DEFAULT_PCT or letters == "D" else None


def payment_probability(
    rating: str | None, years: float, *, sovereign: bool = False, national: bool = False
) -> float | None:
    """P(paid at maturity) = 1 - CDR(bucket, T), with the survival curve interpolated geometrically
    between whole years, `(1 - CDR_1)^T` below a year and the last marginal hazard beyond 10 years.
    Sovereign (Tesouro) bonds are the domestic risk-free asset: 1.0. None when the rating is unknown."""
    if sovereign:
        return 1.0
    bucket = rating_bucket(rating, national=national)
    if bucket is None:
        return None
    if bucket == "D":
        return 0.0
    years = max(0.0, years)
    survival = [1.0] + [1.0 - pct / 100.0 for pct in EM_CUMULATIVE_DEFAULT_PCT[bucket]]
    last = len(survival) - 1
    if years <= 1.0:
        return survival[1] ** years
    if years >= last:
        hazard = survival[last] / survival[last - 1] if survival[last - 1] > 0 else 1.0
        return survival[last] * hazard ** (years - last)
    n = math.floor(years)
    low, high = survival[n], survival[n + 1]
    if low <= 0:
        return 0.0
    return low * (high / low) ** (years - n)
