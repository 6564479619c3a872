"""Coupon-paying bonds as dated cash flows: which offers pay coupons, when, what each flow is worth
after custody fee, IOF and income tax (each coupon at the bracket of its own holding period), and
the internal rate of return of the flows on business days /252. Pure Python (no Django).

Tesouro Prefixado com Juros Semestrais (NTN-F) pays 10% a year on BRL 1,000 face as (1.10)^(1/2) - 1
= 4.880885% each 1 January and 1 July; Tesouro IPCA+ com Juros Semestrais (NTN-B) pays 6% a year on
the inflation-updated nominal value as (1.06)^(1/2) - 1 = 2.956301% each six months counted back from
its maturity (15 May/15 November for odd-year maturities, 15 February/15 August for even ones). A flow
due on a non-business day is paid on the next business day.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from bonds.finance.daycount import BUSINESS_DAYS_PER_YEAR, next_business_day


@dataclass(frozen=True)
class CouponTerms:
    """A coupon paid every `months` months, counted back from maturity: `annual_rate` a year on the
    face (NTN-F) or the inflation-updated value (NTN-B); None: the interest the offer accrues at its
    own index and rate, on a principal repaid at maturity (a debenture paying periodic interest)."""

    annual_rate: float | None
    months: int = 6

    @property
    def per_period(self) -> float:
        if self.annual_rate is None:
            raise ValueError("interest at the offer's own rate has no fixed coupon")
        return (1.0 + self.annual_rate) ** (self.months / 12) - 1.0


NTN_B_COUPON = CouponTerms(0.06)
NTN_F_COUPON = CouponTerms(0.10)
# "NTN-B" but not "NTN-B Principal" (zero coupon) nor "NTN-B1" (Renda+/Educa+); "NTN-F".
_NTN_B = re.compile(r"\bntn-?b\b(?!\s*principal)")
_NTN_F = re.compile(r"\bntn-?f\b")


# Interest periods a source may state (months between payments).
INTEREST_PERIODS = (1, 3, 6, 12)


@dataclass(frozen=True)
class Instalments:
    """Repaid in `count` equal monthly instalments (in real terms for an IPCA+ title), the last one on
    the maturity date: Tesouro Renda+ (240, from January of the title's year) and Educa+ (60)."""

    count: int
    months: int = 1


RENDA_PLUS = Instalments(240)
EDUCA_PLUS = Instalments(60)
INSTALMENT_TITLES = (("renda+", RENDA_PLUS), ("renda +", RENDA_PLUS), ("educa+", EDUCA_PLUS))


def coupon_terms(
    *, name: str, index: str, coupon_months: int | None = None
) -> CouponTerms | Instalments | None:
    """The coupon an offer pays: interest every `coupon_months` months when its source says so (a
    debenture); else from its name, Tesouro ... com Juros Semestrais or a broker's NTN-B/NTN-F, or
    Tesouro Renda+/Educa+ in monthly instalments; None for a bond paying everything at maturity."""
    if coupon_months:
        return CouponTerms(None, coupon_months)
    lowered = name.lower()
    for marker, terms in INSTALMENT_TITLES:
        if marker in lowered:
            return terms
    semiannual = "juros semestrais" in lowered
    if index == "ipca+" and (semiannual or _NTN_B.search(lowered)):
        return NTN_B_COUPON
    if index == "pre" and (semiannual or _NTN_F.search(lowered)):
        return NTN_F_COUPON
    return None


def _months_before(day: date, months: int) -> date:
    total = day.year * 12 + day.month - 1 - months
    return date(total // 12, total % 12 + 1, day.day)


def payment_days(terms: CouponTerms | Instalments, start: date, maturity: date) -> list[date]:
    """The days the coupons (or instalments) after `start` are paid (the last with the principal), in
    order; an instalment title pays no more than its `count`."""
    due, step = [], 1
    day = maturity
    limit = terms.count if isinstance(terms, Instalments) else None
    while day > start and (limit is None or len(due) < limit):
        due.append(next_business_day(day))
        day = _months_before(maturity, terms.months * step)
        step += 1
    return sorted(due)


def first_instalment(terms: Instalments, maturity: date) -> date:
    """The day the first of an instalment title's payments falls due (the last one is the maturity)."""
    return _months_before(maturity, terms.months * (terms.count - 1))


# How an offer pays (the row's `payment_schedule`).
BULLET, SEMIANNUAL, MONTHLY, QUARTERLY, ANNUAL, INSTALMENTS, UNKNOWN = (
    "bullet", "semiannual", "monthly", "quarterly", "annual", "instalments", "unknown",
)  # fmt: skip
PAYMENT_SCHEDULES = (BULLET, SEMIANNUAL, MONTHLY, QUARTERLY, ANNUAL, INSTALMENTS, UNKNOWN)
_BY_MONTHS = {1: MONTHLY, 3: QUARTERLY, 6: SEMIANNUAL, 12: ANNUAL}
# Products a feed may sell with periodic interest: without `coupon_months` their schedule is unknown.
SCHEDULE_UNKNOWN_PRODUCTS = frozenset({"deb", "cri", "cra", "misc"})


def payment_schedule(*, terms: CouponTerms | Instalments | None, product: str) -> str:
    """`instalments` (Renda+/Educa+), `semiannual`/`monthly`/`quarterly`/`annual` (coupons or interest
    every N months), `bullet` (everything at maturity: bank paper, zero-coupon federal bonds), or
    `unknown`: a debenture, CRI, CRA or other company paper whose source says nothing of its interest
    (computed as a bullet)."""
    if isinstance(terms, Instalments):
        return INSTALMENTS
    if terms is not None:
        return _BY_MONTHS[terms.months]
    return UNKNOWN if product in SCHEDULE_UNKNOWN_PRODUCTS else BULLET


@dataclass(frozen=True)
class CashFlow:
    """One payment per BRL 1 invested: its day, business and calendar days from the purchase, the
    gross amount received (coupon, plus principal at the end), and what custody fee, IOF and income
    tax take from it."""

    day: date
    du: int
    dc: int
    gross: float
    custody_fee: float = 0.0
    iof: float = 0.0
    income_tax: float = 0.0

    @property
    def net(self) -> float:
        return self.gross - self.custody_fee - self.iof - self.income_tax


def internal_rate(flows: Sequence[tuple[int, float]], price: float = 1.0) -> float | None:
    """The annual rate x with sum(amount / (1 + x)^(du/252)) = price, by bisection (the sum falls as
    x rises); None when no rate in (-99%, 1000%) gives it."""

    def value(rate: float) -> float:
        return sum(amount * math.exp(-du / BUSINESS_DAYS_PER_YEAR * math.log1p(rate)) for du, amount in flows)

    low, high = -0.99, 10.0
    if not flows or value(low) < price or value(high) > price:
        return None
    for _ in range(200):
        middle = (low + high) / 2
        if value(middle) > price:
            low = middle
        else:
            high = middle
        if high - low < 1e-13:
            break
    return (low + high) / 2
