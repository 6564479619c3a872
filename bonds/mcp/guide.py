"""What `explain_bonds` returns: the fields, codes, formulas, tax table, statuses and limits, built
from the same constants the listing uses (models' choices, finance's tables, statuses' texts), so
the explanation cannot drift from the numbers."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from bonds import finance, statuses
from bonds.mcp.schemas import BondGuide, CodeDoc, FieldDoc, FormulaDoc, StatusDoc, TaxBracket
from bonds.models import Index, Product

SUMMARY = (
    "Ponte lists active Brazilian fixed-income offers (CDB, LCI, LCA, CRI, CRA, debentures, LF, Tesouro "
    "Direto...) refreshed daily, each with a net annualized return after income tax and a real return "
    "above inflation, both projected from the BCB Focus survey's Selic and IPCA medians. Rates and returns "
    "are decimals: 0.1165 means 11.65% a year. Figures are projections, not promises."
)

FIELDS = (
    ("id", "integer", "Ponte's id of the offer (MCP only); pass it to project_bond."),
    ("name", "string", "Bond name."),
    ("bank", "integer", "Numeric code of the issuing bank or broker."),
    ("bank_name", "string", "Name of the issuer or broker."),
    ("product", "string enum", "Product type; see `products`."),
    ("index", "string enum", "What the bond pays; see `indexes`."),
    (
        "rate",
        "number",
        "Factor or spread of the index, as a decimal: 1.05 with cdi* is 105% of CDI; 0.06 with ipca+ is "
        "IPCA + 6% a year; 0.13 with pre is 13% a year.",
    ),
    (
        "fgc_protection",
        "boolean",
        "Covered by the FGC deposit guarantee (BRL 250,000 per CPF per institution).",
    ),
    (
        "tax_free",
        "boolean",
        "Exempt from income tax for individuals (LCI, LCA, CRI, CRA, incentivized debentures).",
    ),
    ("exclusive", "boolean", "Restricted to qualified investors."),
    ("min_investment", "number", "Minimum application in BRL."),
    ("maturity_date", "string (date)", "YYYY-MM-DD. The money is paid back then."),
    ("early_withdrawal", "boolean", "Redemption before maturity allowed."),
    (
        "rating",
        "string or null",
        "Issuer credit rating; '-' when omitted for the bank; null when unavailable.",
    ),
    (
        "payment_probability",
        "number or null",
        "Historical probability that the issuer pays at maturity, from its rating and the term "
        "(see formulas).",
    ),
    (
        "net_annualized_return",
        "number or null",
        "Net annualized return after income tax (and custody fee) if held to maturity, from today; "
        "null when a projection is missing.",
    ),
    ("real_annualized_return", "number or null", "Annualized gain above projected IPCA (Fisher equation)."),
    ("years_to_maturity", "number", "Calendar years from today to maturity (MCP only)."),
    (
        "projection",
        "object or null",
        "With list_bonds(amount=...): gross_amount, custody_fee, income_tax, net_amount, net_gain in BRL at "
        "maturity for that amount invested today (MCP only).",
    ),
)

INDEX_MEANINGS = {
    "cdi*": "a percentage of the CDI: rate 1.10 pays 110% of each day's CDI.",
    "cdi+": "CDI plus a yearly spread: rate 0.02 pays CDI + 2% a year.",
    "ipca*": "a percentage of IPCA inflation.",
    "ipca+": "IPCA plus a yearly real rate: rate 0.06 pays IPCA + 6% a year.",
    "selic*": "a percentage of the Selic rate.",
    "selic+": "Selic plus a yearly spread (Tesouro Selic).",
    "pre": "a fixed rate a year, known today.",
}

FORMULAS = (
    (
        "Day counts",
        "du = ANBIMA business days from today (inclusive) to maturity (exclusive); dc = calendar days",
        "ANBIMA calendar: national holidays, Carnival Monday and Tuesday, Good Friday, Corpus Christi and, "
        "from 2024, 20 November.",
    ),
    (
        "Projected CDI and Selic",
        "CDI(year) = Selic target median(year) - 0.10 pp; effective Selic = CDI",
        "Per calendar year from the Focus year-end medians; years before the first projected one use the "
        "current Selic target, years after the last one repeat it.",
    ),
    (
        "Percentage of an index (cdi*, selic*, ipca*)",
        "F = prod over each year y of [1 + ((1 + I_y)^(1/252) - 1) * rate]^(du_y)",
        "B3 DI methodology (daily rate times the percentage), not the (1 + rate*CDI)^(du/252) shortcut.",
    ),
    (
        "Index plus spread (cdi+, selic+, ipca+)",
        "F = prod over each year y of (1 + I_y)^(du_y/252) * (1 + rate)^(du/252)",
        "I_y is the projected CDI (cdi+, selic+) or IPCA (ipca+) of year y.",
    ),
    ("Fixed rate (pre)", "F = (1 + rate)^(du/252)", "252 business days a year."),
    ("Gross annualized", "g = F^(252/du) - 1", ""),
    (
        "Custody fee (Tesouro Direto)",
        f"F_fee = F * (1 - {finance.TESOURO_CUSTODY_FEE})^(dc/365)",
        f"B3 fee of {finance.TESOURO_CUSTODY_FEE:.2%} a year; Tesouro Selic is exempt up to BRL "
        f"{finance.TESOURO_SELIC_CUSTODY_EXEMPT_UP_TO:,.0f}.",
    ),
    (
        "Net of income tax",
        "F_net = 1 + (F_fee - 1) * (1 - t(dc)); net_annualized_return = F_net^(252/du) - 1",
        "t from income_tax_table by calendar days held; t = 0 for tax_free bonds; no tax on a loss.",
    ),
    (
        "Real return (Fisher)",
        "real_annualized_return = (1 + net) / (1 + pi) - 1",
        "pi = projected IPCA annualized over the same business days: "
        "(prod (1 + IPCA_y)^(du_y/252))^(252/du) - 1.",
    ),
    (
        "Amount at maturity",
        "gross_amount = amount * F; net_amount = amount * F_net; income_tax = amount * F_fee - net_amount",
        "What project_bond and list_bonds(amount=...) report, rounded to cents.",
    ),
    (
        "Payment probability",
        "P = 1 - CDR(rating bucket, T years); geometric interpolation of survival between whole years",
        "S&P Global emerging-markets average cumulative default rates (2024 study). National-scale ratings "
        "(brAA, AA(bra), AA.br) are first mapped to the global scale (Austin table: brAAA -> BB+, "
        "brA -> BB-, ...), which is conservative. Tesouro (sovereign, domestic) counts as 1. A historical "
        "frequency, not a forecast; FGC coverage is shown separately in fgc_protection.",
    ),
)

HOW_TO_ANSWER = (
    "For 'where should I put BRL X for N years?': call list_bonds with min_maturity/max_maturity around "
    "today + N years (today is in every result), amount=X and sort='net_return'.",
    "Compare net_annualized_return (after tax), real_annualized_return (above inflation), "
    "payment_probability, fgc_protection and early_withdrawal; projection.net_amount is what X becomes.",
    "Call project_bond(bond_id, amount) for the step-by-step figures of a chosen bond.",
    "Without an API key the reply is a preview of at most 5 bonds (status 'preview'): say so to the user.",
    "Keyed calls must be 5 seconds apart; on 'rate_limited', wait 5 seconds and call again.",
    "These are projections from market expectations, not guarantees; this is not personalised advice.",
)

SOURCES = (
    "Offers: Tesouro Transparente (Tesouro Direto prices and rates CSV) and broker feeds.",
    "Projections: BCB Focus market expectations survey (Olinda OData: annual Selic and IPCA medians).",
    "Current rates: BCB SGS (Selic target 432, CDI 4389, IPCA 12 months 13522).",
    "Income tax: Lei 11.033/2004 art. 1 (regressive table). Default rates: S&P Global 2024 study.",
)

BOND_COUNTS = {
    statuses.OK: "all matching bonds",
    statuses.PREVIEW: "at most {limit} bonds",
    statuses.UNAUTHORIZED: "none",
    statuses.NO_SUBSCRIPTION: "none",
    statuses.PAYMENT_ISSUE: "none",
    statuses.RATE_LIMITED: "none",
}


def bond_guide(assumptions) -> BondGuide:
    limit = settings.BONDS_PREVIEW_LIMIT
    interval = settings.BONDS_KEY_INTERVAL_SECONDS
    return BondGuide(
        summary=SUMMARY,
        today=timezone.localdate(),
        fields=[FieldDoc(name=n, type=t, meaning=m) for n, t, m in FIELDS],
        products=[CodeDoc(code=code, meaning=label) for code, label in Product.choices],
        indexes=[
            CodeDoc(code=code, meaning=f"{label}: {INDEX_MEANINGS[code]}") for code, label in Index.choices
        ],
        formulas=[FormulaDoc(name=n, formula=f, notes=notes) for n, f, notes in FORMULAS],
        income_tax_table=[
            TaxBracket(max_calendar_days=days, rate=rate) for days, rate in finance.INCOME_TAX_TABLE
        ],
        statuses=[
            StatusDoc(
                status=status,
                bonds=BOND_COUNTS[status].format(limit=limit),
                description=statuses.description(status),
            )
            for status in statuses.ALL
        ],
        limits=[
            f"Without a key: a preview of at most {limit} bonds.",
            f"With a key: calls to list_bonds and project_bond (and GET /bonds/api/) must be at least "
            f"{interval} seconds apart per key; a call that breaks the interval gets 'rate_limited'.",
            "list_bonds returns at most `limit` bonds (1 to 200, default 20); `matching` tells how many "
            "match.",
        ],
        sources=list(SOURCES),
        how_to_answer=list(HOW_TO_ANSWER),
        assumptions=assumptions,
    )
