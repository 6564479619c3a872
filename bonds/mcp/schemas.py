"""Typed results of the MCP tools. Pydantic models give each tool an `outputSchema`, and the SDK
returns them as `structured_content` (plus the same JSON as text, for clients that read text only).

Bond fields keep the names, types and units of the REST Bond: rates are decimals
(0.1165 is 11.65% a year), amounts are BRL, dates are `YYYY-MM-DD`.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

from bonds.filters import SORT_VALUES
from bonds.ratings import RATING_MIN_VALUES

Status = Literal["ok", "preview", "unauthorized", "no_subscription", "payment_issue", "rate_limited"]
ProductCode = Literal["cdb", "lci", "lca", "cri", "cra", "deb", "tpf", "td", "lf", "misc"]
IndexCode = Literal["cdi*", "cdi+", "ipca*", "ipca+", "selic*", "selic+", "pre"]
# The tool's first three orders, then every REST `sort` value (a field; `-` before it: descending),
# built from the same tuples as the REST parameters so the two cannot drift apart.
SortOrder = Literal[("net_return", "real_return", "maturity", *SORT_VALUES)]  # type: ignore[valid-type]
RatingMin = Literal[RATING_MIN_VALUES]  # type: ignore[valid-type]


class AmountOutcome(BaseModel):
    """What an amount invested today becomes at maturity, in BRL (null when a projection is missing)."""

    amount: float = Field(description="Amount invested today, BRL.")
    gross_amount: float | None = Field(description="Value at maturity before fees and income tax.")
    custody_fee: float | None = Field(description="B3 custody fee (Tesouro Direto only), BRL.")
    iof: float | None = Field(description="IOF on the income, BRL: only when maturity is within 29 days.")
    income_tax: float | None = Field(description="Income tax withheld at maturity, BRL (0 if tax-free).")
    net_amount: float | None = Field(description="What the investor receives at maturity, BRL.")
    net_gain: float | None = Field(description="net_amount minus amount, BRL.")
    meets_min_investment: bool = Field(description="Whether amount is at least the bond's min_investment.")


class BondItem(BaseModel):
    """One active offer: the REST Bond fields, plus `id` (for `project_bond`) and an optional
    projection for the amount asked."""

    id: int = Field(description="Ponte's id of the offer; pass it to project_bond.")
    name: str
    bank: int = Field(description="Numeric code of the issuing bank or broker.")
    bank_name: str
    product: ProductCode
    index: IndexCode
    rate: float = Field(description="Factor (cdi*, ipca*, selic*) or spread (cdi+, ipca+, selic+, pre).")
    fgc_protection: bool = Field(
        description="Covered by the FGC (up to BRL 250,000 per CPF per institution)."
    )
    tax_free: bool = Field(description="Exempt from income tax for individuals.")
    exclusive: bool = Field(description="Restricted to qualified investors.")
    min_investment: float = Field(description="Minimum application, BRL.")
    maturity_date: date
    early_withdrawal: bool = Field(
        description="Redemption before maturity at the contract rate allowed (a sale at the market price, "
        "as for Tesouro Direto, is not one: see liquidity_kind)."
    )
    rating: str | None = Field(description="Issuer rating; '-' when omitted for the bank; null if unknown.")
    payment_probability: float | None = Field(
        description="The issuer's historical probability of payment at maturity (federal bonds 1)."
    )
    net_annualized_return: float | None = Field(description="Net of income tax, a year, to maturity.")
    real_annualized_return: float | None = Field(description="Above projected IPCA (Fisher), a year.")
    liquidity_days: int | None = Field(
        description="D+N business days from the order to the money; null when unknown or when there is no "
        "exit before maturity."
    )
    grace_period_days: int | None = Field(
        description="Days after the application before a redemption is allowed; null when unknown."
    )
    net_return_cdi_percent: float | None = Field(
        description="Tax-equivalent rate: share of the projected CDI a taxed CDB over the same dates "
        "must pay to net the same (1.1 = 110% of CDI)."
    )
    covered_payment_probability: float | None = Field(
        description="Probability of being paid counting the FGC: in a default the FGC pays the share of "
        "what is owed then (principal plus interest, for the amount) within BRL 250,000 per CPF per "
        "institution; at least 0.999 on FGC-covered offers while that stays under the limit; "
        "payment_probability elsewhere."
    )
    fgc_covered_share: float | None = Field(
        default=None,
        description="Share (0-1) of what is owed at maturity (for the amount, else the minimum investment) "
        "the FGC covers; null where there is no FGC.",
    )
    payment_schedule: str = Field(
        default="",
        description="bullet, semiannual, monthly, quarterly, annual, instalments (Renda+ 240, Educa+ 60 "
        "monthly payments) or unknown (the source says nothing: computed as a bullet).",
    )
    first_payment_date: date | None = Field(
        default=None,
        description="The first payment after settlement; maturity_date is the last one.",
    )
    horizon_reachable: bool | None = Field(
        default=None,
        description="With a horizon: true when the money is back by then at the contract rate (net and real "
        "returns are then if redeemed that day), false when not (figures at maturity); null without one.",
    )
    liquidity_kind: Literal["redemption", "sale"] | None = Field(
        description="How money comes back before maturity: 'redemption' by the issuer at the contract "
        "rate, 'sale' at the market price (Tesouro Direto, D+1; it may be below the contract curve); null "
        "when it does not."
    )
    years_to_maturity: float = Field(description="Calendar years from today to maturity_date.")
    projection: AmountOutcome | None = Field(
        default=None, description="Present when list_bonds was called with `amount`."
    )


class CdiStep(BaseModel):
    """One step of the projected path: applies from `start` until the next step's start."""

    start: date = Field(description="First day of the step (the REST `from`).")
    cdi: float = Field(description="Projected CDI, a year, decimal.")
    selic: float = Field(description="Effective Selic the selic* and selic+ offers compound at (= cdi).")
    selic_target: float = Field(description="Projected Selic target, a year, decimal.")
    meeting: str | None = Field(description="The Copom meeting starting the step (R1/2027), else null.")
    estimated_date: bool = Field(description="The meeting's date is estimated (not yet in BCB's calendar).")
    median_source: Literal["focus-meeting", "focus-year-end", "kept"] | None = Field(
        default=None,
        description="Whence the meeting's target: its Focus median as published, the Focus year-end median "
        "(at the year's last meeting), or kept from the previous step (Focus does not name the meeting).",
    )


class Assumptions(BaseModel):
    """The projections every return is computed from (BCB Focus medians and current rates, in %)."""

    projection_date: date | None = Field(description="Date of the projection snapshot used.")
    settlement_date: date | None = Field(
        default=None,
        description="The day an order placed now settles (today on an ANBIMA business day, else the next "
        "one): every figure counts its days, tax brackets and coupons from it.",
    )
    focus_survey_date: date | None = Field(description="Survey date of the Focus medians.")
    selic_target_pct: float | None = Field(description="Current Selic target, % a year.")
    cdi_pct: float | None = Field(description="Current CDI, % a year (SGS 4389).")
    cdi_selic_gap_pp: float | None = Field(
        description="Selic target - CDI observed in SGS, percentage points; the projected CDI is the "
        "projected target minus this gap (0.10 when none was observed)."
    )
    selic_by_meeting_pct: dict[str, float] = Field(
        description="Focus Selic target median per Copom meeting (R8/2026...), %; applies from the day after "
        "the meeting."
    )
    ipca_12m_pct: float | None = Field(description="IPCA over the last 12 months, %.")
    selic_by_year_pct: dict[str, float] = Field(description="Focus year-end Selic target medians, %.")
    ipca_by_year_pct: dict[str, float] = Field(description="Focus IPCA medians per calendar year, %.")
    cdi_path: list[CdiStep] = Field(
        default_factory=list,
        description="The projected CDI path from today every CDI/Selic figure compounds.",
    )
    poupanca_annual_return: float | None = Field(
        default=None, description="Savings account (poupança) over the next 12 months on this path, tax-free."
    )
    tr_monthly: float | None = Field(
        default=None, description="The TR in force (SGS 226) for poupança, decimal a month; null if unknown."
    )
    tr_date: date | None = Field(default=None, description="The day that TR's month starts (SGS 226 `data`).")


class BondListResult(BaseModel):
    status: Status = Field(description="Same values as the REST response.status.")
    description: str = Field(description="What the status means and what to do about it.")
    preview: bool = Field(description="True when this is a preview (no key): at most 5 bonds.")
    today: date = Field(description="The date returns and years_to_maturity are counted from.")
    matching: int = Field(description="Active bonds matching the filters (0 when the status gives none).")
    returned: int = Field(description="Bonds in this reply (limit, and at most 5 in a preview).")
    sort: SortOrder
    amount: float | None = Field(description="The amount each bond's projection is for, if asked.")
    bonds: list[BondItem]
    assumptions: Assumptions | None = Field(description="Null when the status gives no bonds.")


class CashFlowItem(BaseModel):
    day: date = Field(description="Payment day (the next business day when the due date is not one).")
    gross: float = Field(description="Coupon (plus principal at the end), BRL.")
    custody_fee: float
    iof: float
    income_tax: float = Field(description="At the bracket of the days from purchase to this payment.")
    net: float


class BondProjectionResult(BaseModel):
    status: Status
    description: str
    preview: bool
    today: date
    bond: BondItem | None = Field(description="The bond projected; null when the status gives no bonds.")
    amount: float
    business_days: int | None = Field(description="du: ANBIMA business days from today to maturity.")
    calendar_days: int | None = Field(description="dc: calendar days from today to maturity.")
    income_tax_rate: float | None = Field(description="Rate of the regressive table for dc (0 if tax-free).")
    custody_fee_rate: float | None = Field(description="Yearly custody fee rate applied (Tesouro Direto).")
    iof_rate: float | None = Field(
        description="IOF share of the income for dc (Decreto 6.306/2007; 0 from day 30)."
    )
    gross_amount: float | None
    custody_fee: float | None
    iof: float | None
    income_tax: float | None
    net_amount: float | None
    net_gain: float | None
    gross_annualized_return: float | None
    net_annualized_return: float | None
    real_annualized_return: float | None
    projected_inflation: float | None = Field(description="Projected IPCA, a year, over the same horizon.")
    meets_min_investment: bool | None
    cash_flows: list[CashFlowItem] = Field(
        default_factory=list,
        description="Coupon bonds: each payment for this amount (coupons as paid, not reinvested); empty for "
        "a bond paying everything at maturity.",
    )
    notes: list[str] = Field(description="Caveats for this projection, in plain English.")
    assumptions: Assumptions | None
    horizon: date | None = Field(default=None, description="The exit day asked for (horizon), if any.")
    horizon_reachable: bool | None = Field(
        default=None,
        description="With a horizon: whether the money is back by then at the contract rate (a redemption, "
        "after any grace period, or the maturity); the amounts and returns then run to the horizon. False: "
        "they run to maturity. Null without a horizon.",
    )


class FieldDoc(BaseModel):
    name: str
    type: str
    meaning: str


class CodeDoc(BaseModel):
    code: str
    meaning: str


class FormulaDoc(BaseModel):
    name: str
    formula: str
    notes: str


class TaxBracket(BaseModel):
    max_calendar_days: int | None = Field(description="Upper bound of the bracket; null: open-ended.")
    rate: float


class IofDay(BaseModel):
    calendar_days: int
    rate: float = Field(description="Share of the income taken by IOF for a redemption on that day.")


class StatusDoc(BaseModel):
    status: Status
    bonds: str
    description: str


class BondGuide(BaseModel):
    """Everything an agent needs to read the bond figures correctly."""

    summary: str
    today: date
    fields: list[FieldDoc]
    products: list[CodeDoc]
    indexes: list[CodeDoc]
    formulas: list[FormulaDoc]
    income_tax_table: list[TaxBracket]
    iof_table: list[IofDay] = Field(description="IOF by calendar day held, 1..29; 0 from day 30.")
    statuses: list[StatusDoc]
    limits: list[str]
    sources: list[str]
    how_to_answer: list[str] = Field(description="Steps for questions like 'where to put BRL X for N years'.")
    assumptions: Assumptions | None = Field(description="The latest projections; null before a refresh.")
