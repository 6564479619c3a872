"""Bond maths: calendar, Copom meeting path, taxes (income tax, IOF, custody fee), gross factor, net,
real and tax-equivalent returns, payment probability. Pure Python (no Django import), so the MCP
server, the refresh and the tests can all call it directly. Rates are decimals (0.149 is 14.90% a
year). Formulas and worked checks are in docs/bonds.md.

Modules: `daycount` (ANBIMA calendar), `copom` (meeting calendar data), `path` (projected Selic/CDI
and IPCA), `taxes`, `returns`, `credit` (payment probability). Their public names are re-exported here.
"""

from bonds.finance.copom import COPOM_MEETINGS, COPOM_SOURCE, meeting_date, meeting_key
from bonds.finance.credit import (
    EM_CUMULATIVE_DEFAULT_PCT,
    NATIONAL_TO_GLOBAL,
    payment_probability,
    rating_bucket,
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
from bonds.finance.path import CDI_SPREAD_BELOW_SELIC, DEFAULT_CDI_GAP, Projection
from bonds.finance.returns import (
    INDEX_KINDS,
    AmountProjection,
    Returns,
    annualized,
    cdi_equivalent,
    gross_factor,
    inflation_factor,
    offer_returns,
    project_amount,
)
from bonds.finance.taxes import (
    INCOME_TAX_TABLE,
    IOF_PERCENT_BY_DAY,
    TESOURO_CUSTODY_FEE,
    TESOURO_SELIC_CUSTODY_EXEMPT_UP_TO,
    income_tax_rate,
    iof_rate,
    net_of_taxes,
)

__all__ = [
    "BUSINESS_DAYS_PER_YEAR",
    "CDI_SPREAD_BELOW_SELIC",
    "COPOM_MEETINGS",
    "COPOM_SOURCE",
    "DEFAULT_CDI_GAP",
    "EM_CUMULATIVE_DEFAULT_PCT",
    "INCOME_TAX_TABLE",
    "INDEX_KINDS",
    "IOF_PERCENT_BY_DAY",
    "NATIONAL_TO_GLOBAL",
    "TESOURO_CUSTODY_FEE",
    "TESOURO_SELIC_CUSTODY_EXEMPT_UP_TO",
    "AmountProjection",
    "Projection",
    "Returns",
    "annualized",
    "business_days",
    "business_days_by_year",
    "cdi_equivalent",
    "easter",
    "gross_factor",
    "holidays",
    "income_tax_rate",
    "inflation_factor",
    "iof_rate",
    "is_business_day",
    "meeting_date",
    "meeting_key",
    "net_of_taxes",
    "next_business_day",
    "offer_returns",
    "payment_probability",
    "project_amount",
    "rating_bucket",
]
