"""Income tax (regressive table), IOF on redemptions within 30 days, and the Tesouro Direto custody
fee. Kept as data: the government may change them. Pure Python (no Django)."""

from __future__ import annotations

# (max calendar days held, rate); Lei 11.033/2004 art. 1.
INCOME_TAX_TABLE: tuple[tuple[int | None, float], ...] = (
    (180, 0.225),
    (360, 0.20),
    (720, 0.175),
    (None, 0.15),
)
# IOF on the income of a redemption, in % by calendar day held 1..29 (Decreto 6.306/2007, anexo;
# IN RFB 907/2009 anexo I); from day 30 on it is 0. It applies to tax-free products too.
IOF_PERCENT_BY_DAY: tuple[int, ...] = (
    96, 93, 90, 86, 83, 80, 76, 73, 70, 66,
    63, 60, 56, 53, 50, 46, 43, 40, 36, 33,
    30, 26, 23, 20, 16, 13, 10, 6, 3,
)  # fmt: skip
# B3 custody fee on Tesouro Direto, a year, applied before income tax (B3's Tesouro Direto fee page;
# since 31/12/2024 charged at events: coupon, maturity, sale). Tesouro Selic: no fee on the first
# BRL 10,000 per investor, 0.20% on the excess only (B3 press release 23/07/2020). Tesouro Renda+ and
# Educa+ held to maturity: no fee while accumulating, and none on monthly payments up to 6 (Renda+) or
# 4 (Educa+) minimum wages (0.10% a year on the excess of the payment); sold before, 0.50% a year up
# to 7 years held, 0.20% to 14, 0.10% beyond (Tesouro Nacional / B3 launch notes of 2023).
TESOURO_CUSTODY_FEE = 0.0020
TESOURO_SELIC_CUSTODY_EXEMPT_UP_TO = 10_000.0
INCOME_BONDS = ("tesouro renda+", "tesouro educa+")


def income_tax_rate(calendar_days: int, *, tax_free: bool = False) -> float:
    if tax_free:
        return 0.0
    for limit, rate in INCOME_TAX_TABLE:
        if limit is None or calendar_days <= limit:
            return rate
    raise AssertionError("the table ends with an open bracket")


def iof_rate(calendar_days: int) -> float:
    """Share of the income taken by IOF for a redemption after `calendar_days` (0 from day 30)."""
    if 1 <= calendar_days <= len(IOF_PERCENT_BY_DAY):
        return IOF_PERCENT_BY_DAY[calendar_days - 1] / 100
    return 0.0


def net_of_taxes(
    gain: float, calendar_days: int, *, tax_free: bool, redemption: bool = True
) -> tuple[float, float, float]:
    """(IOF, income tax, net gain) of a gross gain: IOF on the income first, income tax on the income
    minus IOF. A loss pays neither. IOF falls on redemptions, sales and transfers only (Decreto
    6.306/2007, art. 32): a coupon (`redemption=False`) pays income tax alone."""
    if gain <= 0:
        return 0.0, 0.0, gain
    iof = gain * iof_rate(calendar_days) if redemption else 0.0
    income_tax = (gain - iof) * income_tax_rate(calendar_days, tax_free=tax_free)
    return iof, income_tax, gain - iof - income_tax


def custody_fee_rate(*, product: str, index: str, amount: float, name: str = "") -> float:
    """The B3 custody fee a year on `amount` (BRL) of an offer held to maturity, as a share of the
    whole amount: Tesouro Direto (`td`) only. Tesouro Selic pays on the excess over BRL 10,000 only,
    so its rate on the whole is 0.20% x excess / amount (what an amount nets never falls as it grows);
    Renda+ and Educa+ held to maturity pay none (the 0.10% on monthly payments above 6 or 4 minimum
    wages is not modelled: it needs a payment far above any listed minimum)."""
    if product != "td" or amount <= 0:
        return 0.0
    if name.strip().lower().startswith(INCOME_BONDS):
        return 0.0
    if index.startswith("selic"):
        excess = max(0.0, amount - TESOURO_SELIC_CUSTODY_EXEMPT_UP_TO)
        return TESOURO_CUSTODY_FEE * excess / amount
    return TESOURO_CUSTODY_FEE
