"""Bond maths: calendar, Copom meeting path, taxes (income tax, IOF, custody fee), gross factor, net,
real and tax-equivalent returns, payment probability. Pure Python (no Django import), so the MCP
server, the refresh and the tests can all call it directly. Rates are decimals (0.149 is 14.90% a
year).

Modules: `daycount` (ANBIMA calendar), `copom` (meeting calendar data), `path` (projected Selic/CDI
and IPCA), `taxes`, `returns`, `cashflows` (coupon bonds), `credit` (payment probability). Their
public names are re-exported here.
"""

from bonds.finance.cashflows import (
    INTEREST_PERIODS,
    NTN_B_COUPON,
    NTN_F_COUPON,
    CashFlow,
    CouponTerms,
    coupon_terms,
    internal_rate,
    payment_days,
)
from bonds.finance.copom import (
    COPOM_MEETINGS,
    COPOM_SOURCE,
    DatedMeeting,
    calendar_with_fallback,
    dated_meeting,
    has_year,
    meeting_date,
    meeting_key,
    meetings_from_decision_days,
)
from bonds.finance.credit import (
    EM_CUMULATIVE_DEFAULT_PCT,
    FGC_LIMIT_PER_INSTITUTION,
    FGC_SHORTFALL,
    NATIONAL_TO_GLOBAL,
    covered_payment_probability,
    cumulative_default_pct,
    payment_probability,
    rating_bucket,
    rating_position,
)
from bonds.finance.daycount import (
    BUSINESS_DAYS_PER_YEAR,
    business_days,
    business_days_by_year,
    easter,
    holidays,
    is_business_day,
    next_business_day,
)
from bonds.finance.path import DEFAULT_CDI_GAP, PathStep, Projection
from bonds.finance.returns import (
    INDEX_KINDS,
    AmountProjection,
    Returns,
    annualized,
    cdi_equivalent,
    coupon_flows,
    gross_factor,
    inflation_factor,
    offer_returns,
    project_amount,
)
from bonds.finance.savings import poupanca_annual_return, poupanca_monthly
from bonds.finance.taxes import (
    INCOME_TAX_TABLE,
    IOF_PERCENT_BY_DAY,
    TESOURO_CUSTODY_FEE,
    TESOURO_SELIC_CUSTODY_EXEMPT_UP_TO,
    custody_fee_rate,
    income_tax_rate,
    iof_rate,
    net_of_taxes,
)

__all__ = [
    "BUSINESS_DAYS_PER_YEAR",
    "COPOM_MEETINGS",
    "COPOM_SOURCE",
    "DEFAULT_CDI_GAP",
    "EM_CUMULATIVE_DEFAULT_PCT",
    "FGC_LIMIT_PER_INSTITUTION",
    "FGC_SHORTFALL",
    "INCOME_TAX_TABLE",
    "INDEX_KINDS",
    "INTEREST_PERIODS",
    "IOF_PERCENT_BY_DAY",
    "NATIONAL_TO_GLOBAL",
    "NTN_B_COUPON",
    "NTN_F_COUPON",
    "TESOURO_CUSTODY_FEE",
    "TESOURO_SELIC_CUSTODY_EXEMPT_UP_TO",
    "AmountProjection",
    "CashFlow",
    "CouponTerms",
    "DatedMeeting",
    "PathStep",
    "Projection",
    "Returns",
    "annualized",
    "business_days",
    "business_days_by_year",
    "calendar_with_fallback",
    "cdi_equivalent",
    "coupon_flows",
    "coupon_terms",
    "covered_payment_probability",
    "cumulative_default_pct",
    "custody_fee_rate",
    "dated_meeting",
    "easter",
    "gross_factor",
    "has_year",
    "holidays",
    "income_tax_rate",
    "inflation_factor",
    "internal_rate",
    "iof_rate",
    "is_business_day",
    "meeting_date",
    "meeting_key",
    "meetings_from_decision_days",
    "net_of_taxes",
    "next_business_day",
    "offer_returns",
    "payment_days",
    "payment_probability",
    "poupanca_annual_return",
    "poupanca_monthly",
    "project_amount",
    "rating_bucket",
    "rating_position",
]
