"""Gross factor, net (custody fee, IOF, income tax) and real returns of an offer held to maturity, what
an amount becomes, and the tax-equivalent share of the CDI. Pure Python (no Django).

A maturity on a non-business day is paid on the next business day: business days, calendar days
(income-tax bracket, IOF) and the projection all run to that payment day. Coupon-paying bonds are
projected as dated cash flows (`bonds.finance.cashflows`): their net return is the after-tax IRR."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import date

from bonds.finance.cashflows import CashFlow, CouponTerms, Instalments, internal_rate, payment_days
from bonds.finance.daycount import (
    BUSINESS_DAYS_PER_YEAR,
    business_days,
    business_days_by_year,
    next_business_day,
)
from bonds.finance.path import Projection
from bonds.finance.taxes import income_tax_rate, iof_rate, net_of_taxes

INDEX_KINDS = ("cdi*", "cdi+", "ipca*", "ipca+", "selic*", "selic+", "pre")


def _daily(annual: float) -> float:
    """TDI = (1 + annual)^(1/252) - 1 (B3 DI methodology)."""
    return (1.0 + annual) ** (1.0 / BUSINESS_DAYS_PER_YEAR) - 1.0


def _compounded(annual: float, days: int) -> float:
    return (1.0 + annual) ** (days / BUSINESS_DAYS_PER_YEAR)


def cdi_days(start: date, end: date, projection: Projection) -> list[tuple[int, float]] | None:
    """[(business days, CDI)] over [start, end) along the projected path; None without one."""
    segments = projection.cdi_segments(start, end)
    if segments is None:
        return None
    pieces = [(business_days(low, high), cdi) for low, high, cdi in segments]
    return [(days, cdi) for days, cdi in pieces if days]


def ipca_days(start: date, end: date, projection: Projection) -> list[tuple[int, float]] | None:
    pieces = []
    for year, days in business_days_by_year(start, end).items():
        rate = projection.ipca(year)
        if rate is None:
            return None
        pieces.append((days, rate))
    return pieces


def inflation_factor(start: date, end: date, projection: Projection) -> float | None:
    """Projected I_T / I_0 over the business days of each year; None without an IPCA projection."""
    pieces = ipca_days(start, end, projection)
    return None if pieces is None else math.prod(_compounded(rate, days) for days, rate in pieces)


def gross_factor(
    index: str, rate: float, start: date, maturity: date, projection: Projection
) -> float | None:
    """Gross growth factor F over [start, maturity), or None when a needed projection is missing."""
    if index not in INDEX_KINDS:
        raise ValueError(f"unknown index kind {index!r}; expected one of {', '.join(INDEX_KINDS)}")
    du = business_days(start, maturity)
    if index == "pre":
        return _compounded(rate, du)
    # cdi and selic: the effective Selic equals the CDI under the model.
    pieces = (ipca_days if index.startswith("ipca") else cdi_days)(start, maturity, projection)
    if pieces is None:
        return None
    if index.endswith("*"):
        return math.prod((1.0 + _daily(base) * rate) ** days for days, base in pieces)
    return math.prod(_compounded(base, days) for days, base in pieces) * _compounded(rate, du)


def annualized(factor: float, du: int) -> float:
    return factor ** (BUSINESS_DAYS_PER_YEAR / du) - 1.0


def cdi_equivalent(net_factor: float, start: date, maturity: date, projection: Projection) -> float | None:
    """The share p of the projected CDI (1.10 = 110%) a taxed CDB over the same dates must pay to net
    `net_factor` after IOF and income tax: its tax-equivalent rate. None without a CDI path, or for
    a net loss. Solves Σ n_k·ln(1 + TDI_k·p) = ln G* by Newton's method: the left side is concave
    and increasing in p, so the steps from p = 0 rise to the root without overshooting."""
    dc = (maturity - start).days
    pieces = cdi_days(start, maturity, projection)
    if not pieces or net_factor <= 1.0:
        return None
    kept = (1.0 - iof_rate(dc)) * (1.0 - income_tax_rate(dc))
    target = math.log(1.0 + (net_factor - 1.0) / kept)
    daily = [(days, _daily(cdi)) for days, cdi in pieces]
    share = 0.0
    for _ in range(60):
        value = sum(days * math.log1p(tdi * share) for days, tdi in daily) - target
        slope = sum(days * tdi / (1.0 + tdi * share) for days, tdi in daily)
        if slope <= 0:
            return None
        step = -value / slope
        share += step
        if abs(step) < 1e-12:
            break
    return share


@dataclass(frozen=True)
class Returns:
    du: int
    dc: int
    tax_rate: float
    iof_rate: float = 0.0
    gross_factor: float | None = None
    net_factor: float | None = None
    gross_annualized: float | None = None
    net_annualized: float | None = None
    real_annualized: float | None = None
    inflation_annualized: float | None = None
    cdi_equivalent: float | None = None
    # The day the money is paid (the maturity, or the next business day after it).
    payment_date: date | None = None
    # Coupon bonds: every flow per BRL 1 invested (empty for a bond paying everything at maturity).
    flows: tuple[CashFlow, ...] = ()


def offer_returns(
    *,
    index: str,
    rate: float,
    start: date,
    maturity: date,
    projection: Projection | None,
    tax_free: bool,
    custody_fee: float = 0.0,
    coupon: CouponTerms | Instalments | None = None,
) -> Returns:
    """Gross, net (after custody fee, IOF and income tax) and real annualized returns of an offer
    bought on `start` and held to `maturity` (paid on the next business day when that is not one),
    and its tax-equivalent share of the CDI. With `coupon`, the offer pays coupons: the returns are
    the IRRs of its dated flows. Every figure that cannot be computed is None: a maturity today or in
    the past, or a missing projection never raises."""
    if index not in INDEX_KINDS:
        raise ValueError(f"unknown index kind {index!r}; expected one of {', '.join(INDEX_KINDS)}")
    payment = next_business_day(maturity) if maturity > start else maturity
    du = business_days(start, payment)
    dc = max(0, (payment - start).days)
    tax, iof = income_tax_rate(dc, tax_free=tax_free), iof_rate(dc)
    base = Returns(du=du, dc=dc, tax_rate=tax, iof_rate=iof, payment_date=payment)
    if du <= 0:
        return base
    projection = projection or Projection()
    inflation = inflation_factor(start, payment, projection)
    base = replace(base, inflation_annualized=None if inflation is None else annualized(inflation, du))
    if coupon is not None:
        flows = coupon_flows(
            terms=coupon,
            index=index,
            rate=rate,
            start=start,
            maturity=maturity,
            projection=projection,
            tax_free=tax_free,
            custody_fee=custody_fee,
        )
        return _with_flows(base, flows, start, payment, projection)
    factor = gross_factor(index, rate, start, payment, projection)
    if factor is None:
        return base
    after_fee = factor * (1.0 - custody_fee) ** (dc / 365.0)
    net_factor = 1.0 + net_of_taxes(after_fee - 1.0, dc, tax_free=tax_free)[2]
    return _completed(base, factor, net_factor, start, payment, projection)


def _completed(
    base: Returns, factor: float, net_factor: float, start: date, payment: date, projection: Projection
) -> Returns:
    net = annualized(net_factor, base.du)
    inflation = base.inflation_annualized
    return replace(
        base,
        gross_factor=factor,
        net_factor=net_factor,
        gross_annualized=annualized(factor, base.du),
        net_annualized=net,
        real_annualized=None if inflation is None else (1.0 + net) / (1.0 + inflation) - 1.0,
        cdi_equivalent=cdi_equivalent(net_factor, start, payment, projection),
    )


def _with_flows(
    base: Returns, flows: list[CashFlow] | None, start: date, payment: date, projection: Projection
) -> Returns:
    """Returns of a coupon bond: the gross and after-tax IRRs of its flows, as factors over its
    whole term (so the real return and the tax-equivalent rate read them like a bullet's)."""
    if not flows:
        return base
    gross = internal_rate([(flow.du, flow.gross) for flow in flows])
    net = internal_rate([(flow.du, flow.net) for flow in flows])
    if gross is None or net is None:
        return base
    result = _completed(
        base, _compounded(gross, base.du), _compounded(net, base.du), start, payment, projection
    )
    return replace(result, flows=tuple(flows))


def coupon_flows(
    *,
    terms: CouponTerms | Instalments,
    index: str,
    rate: float,
    start: date,
    maturity: date,
    projection: Projection,
    tax_free: bool,
    custody_fee: float = 0.0,
) -> list[CashFlow] | None:
    """The flows of BRL 1 invested on `start` in a coupon bond bought at the quoted `rate` (real for
    IPCA+, nominal for a fixed rate): the price is the flows discounted at that rate over business
    days /252; IPCA+ flows grow with the projected IPCA to their payment day. The custody fee is
    taken at each flow on the position's value then (the charge at events); each coupon pays IOF and
    income tax at the bracket of its own calendar days, and the last flow on the principal's gain
    over the price as well. None without the IPCA projection an IPCA+ bond needs."""
    if isinstance(terms, Instalments):
        return _instalment_flows(terms, index, rate, start, maturity, projection, tax_free, custody_fee)
    if terms.annual_rate is None:
        return _interest_flows(terms, index, rate, start, maturity, projection, tax_free, custody_fee)
    days = payment_days(terms, start, maturity)
    coupon = terms.per_period
    dus = [business_days(start, day) for day in days]
    real = [coupon + (1.0 if k == len(days) - 1 else 0.0) for k in range(len(days))]
    price = sum(amount * _compounded(rate, -du) for amount, du in zip(real, dus, strict=True))
    if index == "ipca+":
        factors = [inflation_factor(start, day, projection) for day in days]
        if any(factor is None for factor in factors):
            return None
    else:
        factors = [1.0] * len(days)
    flows, previous = [], start
    for k, (day, du, factor) in enumerate(zip(days, dus, factors, strict=True)):
        # The position just before this flow: the flows still due, at the quoted rate, in BRL of the day.
        held = factor / price * sum(real[j] * _compounded(rate, du - dus[j]) for j in range(k, len(days)))
        fee = held * (1.0 - (1.0 - custody_fee) ** ((day - previous).days / 365.0))
        gross = real[k] * factor / price
        last = k == len(days) - 1
        income = gross - fee - (1.0 if last else 0.0)
        # A coupon pays income tax only; the payment at maturity is the redemption (IOF within 30 days).
        iof, income_tax, _ = net_of_taxes(income, (day - start).days, tax_free=tax_free, redemption=last)
        flows.append(CashFlow(day, du, (day - start).days, gross, fee, iof, income_tax))
        previous = day
    return flows


def _interest_flows(
    terms: CouponTerms,
    index: str,
    rate: float,
    start: date,
    maturity: date,
    projection: Projection,
    tax_free: bool,
    custody_fee: float,
) -> list[CashFlow] | None:
    """A principal of BRL 1 bought at par on `start` that pays the interest accrued at its own index
    and rate at each payment day (IPCA+: on the IPCA-updated principal, repaid updated at maturity),
    each payment taxed at the bracket of its own calendar days. None without a needed projection."""
    flows, previous = [], start
    days = payment_days(terms, start, maturity)
    for day in days:
        last = day == days[-1]
        if index == "ipca+":
            updated = inflation_factor(start, day, projection)
            if updated is None:
                return None
            interest = updated * (_compounded(rate, business_days(previous, day)) - 1.0)
        else:
            factor = gross_factor(index, rate, previous, day, projection)
            if factor is None:
                return None
            updated, interest = 1.0, factor - 1.0
        fee = (updated + interest) * (1.0 - (1.0 - custody_fee) ** ((day - previous).days / 365.0))
        income = interest - fee + (updated - 1.0 if last else 0.0)
        iof, income_tax, _ = net_of_taxes(income, (day - start).days, tax_free=tax_free, redemption=last)
        gross = interest + (updated if last else 0.0)
        flows.append(
            CashFlow(day, business_days(start, day), (day - start).days, gross, fee, iof, income_tax)
        )
        previous = day
    return flows


def _instalment_flows(
    terms: Instalments,
    index: str,
    rate: float,
    start: date,
    maturity: date,
    projection: Projection,
    tax_free: bool,
    custody_fee: float,
) -> list[CashFlow] | None:
    """BRL 1 invested on `start` in a title repaid in equal monthly instalments (real terms for IPCA+,
    each grown with the projected IPCA to its day), bought at the quoted rate: each instalment redeems
    an equal share of the position, so its cost is 1 / (instalments left) and its income the rest,
    taxed (IOF, income tax) at the bracket of its own calendar days. None without a needed IPCA."""
    days = payment_days(terms, start, maturity)
    dus = [business_days(start, day) for day in days]
    price = sum(_compounded(rate, -du) for du in dus)  # per unit of each instalment's real amount
    factors = [inflation_factor(start, day, projection) if index.startswith("ipca") else 1.0 for day in days]
    if any(factor is None for factor in factors):
        return None
    flows, previous, cost = [], start, 1.0 / len(days)
    for k, (day, du, factor) in enumerate(zip(days, dus, factors, strict=True)):
        held = factor / price * sum(_compounded(rate, du - dus[j]) for j in range(k, len(days)))
        fee = held * (1.0 - (1.0 - custody_fee) ** ((day - previous).days / 365.0))
        gross = factor / price
        iof, income_tax, _ = net_of_taxes(gross - fee - cost, (day - start).days, tax_free=tax_free)
        flows.append(CashFlow(day, du, (day - start).days, gross, fee, iof, income_tax))
        previous = day
    return flows


@dataclass(frozen=True)
class AmountProjection:
    amount: float
    gross_amount: float | None
    custody_fee: float | None
    iof: float | None
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
    coupon: CouponTerms | Instalments | None = None,
) -> AmountProjection:
    """What `amount` invested on `start` becomes by maturity: gross, fee, IOF, tax and net (in BRL);
    for a coupon bond, the sums over its flows (coupons as paid, not reinvested)."""
    result = offer_returns(
        index=index,
        rate=rate,
        start=start,
        maturity=maturity,
        projection=projection,
        tax_free=tax_free,
        custody_fee=custody_fee,
        coupon=coupon,
    )
    if result.gross_factor is None or result.net_factor is None:
        return AmountProjection(amount, None, None, None, None, None, result)
    if result.flows:
        return AmountProjection(
            amount=amount,
            gross_amount=round(amount * sum(flow.gross for flow in result.flows), 2),
            custody_fee=round(amount * sum(flow.custody_fee for flow in result.flows), 2),
            iof=round(amount * sum(flow.iof for flow in result.flows), 2),
            income_tax=round(amount * sum(flow.income_tax for flow in result.flows), 2),
            net_amount=round(amount * sum(flow.net for flow in result.flows), 2),
            returns=result,
        )
    gross = amount * result.gross_factor
    after_fee = gross * (1.0 - custody_fee) ** (result.dc / 365.0)
    iof, income_tax, _ = net_of_taxes(after_fee - amount, result.dc, tax_free=tax_free)
    return AmountProjection(
        amount=amount,
        gross_amount=round(gross, 2),
        custody_fee=round(gross - after_fee, 2),
        iof=round(iof, 2),
        income_tax=round(income_tax, 2),
        net_amount=round(amount * result.net_factor, 2),
        returns=result,
    )
