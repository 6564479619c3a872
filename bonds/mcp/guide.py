"""What `explain_bonds` returns: the fields, codes, formulas, tax table, statuses and limits, built
from the same constants the listing uses (models' choices, finance's tables, statuses' texts), so
the explanation cannot drift from the numbers."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from bonds import finance, statuses
from bonds.mcp.schemas import BondGuide, CodeDoc, FieldDoc, FormulaDoc, IofDay, StatusDoc, TaxBracket
from bonds.models import Index, Product

SUMMARY = (
    "Ponte lists active Brazilian fixed-income offers (CDB, LCI, LCA, CRI, CRA, debentures, LF, Tesouro "
    "Direto...) refreshed daily, each with a net annualized return after income tax and a real return "
    "above inflation, both projected from the BCB Focus survey's Selic and IPCA medians. Rates and returns "
    "are decimals: 0.1165 means 11.65% a year. Figures are projections, not promises."
)

FIELDS = (
    (
        "id",
        "integer",
        "Ponte's id of the offer, the same as in GET /bonds/api/'s JSON and kept across refreshes; pass it "
        "to project_bond.",
    ),
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
    (
        "maturity_date",
        "string (date)",
        "YYYY-MM-DD. The money is paid back then, or on the next business day when it is not one.",
    ),
    (
        "early_withdrawal",
        "boolean",
        "Redemption before maturity at the contract rate allowed (a sale at the market price is not one).",
    ),
    (
        "rating",
        "string or null",
        "Issuer credit rating; '-' when omitted for the bank; null when unavailable.",
    ),
    (
        "payment_probability",
        "number or null",
        "Historical probability that the issuer pays at maturity, from its rating notch and the term "
        "(see formulas); federal bonds 1.",
    ),
    (
        "covered_payment_probability",
        "number or null",
        "Probability of being paid counting the FGC: in a default the FGC pays the share of what is owed "
        "then (principal plus interest, for the amount) within BRL 250,000 per CPF per institution; at "
        "least 0.999 while that stays under the limit; payment_probability elsewhere.",
    ),
    (
        "payment_schedule",
        "string",
        "bullet (all at maturity), semiannual/monthly/quarterly/annual (coupons or interest), instalments "
        "(Tesouro Renda+ 240 and Educa+ 60 monthly payments, each taxed at its own bracket; the return is "
        "the IRR), or unknown (a debenture, CRI or CRA whose source says nothing: computed as a bullet, "
        "which overstates the return of a bond that in fact pays interest along the way).",
    ),
    (
        "first_payment_date",
        "date or null",
        "The first payment after settlement; maturity_date is the last. The maturity filters read "
        "maturity_date (the last payment).",
    ),
    (
        "fgc_covered_share",
        "number or null",
        "Share (0-1) of what is owed at maturity, for the amount (else the minimum investment), that the "
        "FGC's BRL 250,000 covers; null where there is no FGC.",
    ),
    (
        "net_annualized_return",
        "number or null",
        "Net annualized return after income tax (and custody fee) if held to maturity, from today; "
        "null when a projection is missing.",
    ),
    ("real_annualized_return", "number or null", "Annualized gain above projected IPCA (Fisher equation)."),
    (
        "liquidity_days",
        "integer or null",
        "D+N: business days from the order to the money; null if unknown or when there is no exit "
        "before maturity. Tesouro Direto: 1 (a sale, see liquidity_kind).",
    ),
    (
        "liquidity_kind",
        "string or null",
        "'redemption' (by the issuer at the contract rate), 'sale' (at the day's market price: Tesouro "
        "Direto, federal bonds from a broker), null when the money stays until maturity.",
    ),
    (
        "grace_period_days",
        "integer or null",
        "Days after the application before a redemption is allowed (carência); null if unknown.",
    ),
    (
        "net_return_cdi_percent",
        "number or null",
        "Tax-equivalent rate: the share of the projected CDI a taxed CDB over the same "
        "dates would have to pay "
        "to net the same as this bond (1.1 = 110% of CDI). Compare bonds of different products with it.",
    ),
    ("years_to_maturity", "number", "Calendar years from today to maturity (MCP only)."),
    (
        "projection",
        "object or null",
        "With list_bonds(amount=...): gross_amount, custody_fee, iof, income_tax, "
        "net_amount, net_gain in BRL at "
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
        "Projected CDI and Selic (the Copom path)",
        "CDI(day) = Selic target(day) - gap; effective Selic = CDI",
        "Selic target(day): the current target until the next Copom meeting, then each "
        "meeting's Focus median "
        "from the day after the meeting; beyond the last dated meeting, a line to each later Focus year-end "
        "median (stepped monthly), flat after the last. gap = Selic target - CDI on the latest day SGS has "
        "both (series 432 and 4389); 0.10 pp when none. Meetings whose dates BCB has not published yet sit "
        "at the same meeting a year before plus 52 weeks (flagged). See assumptions.cdi_path.",
    ),
    (
        "Percentage of an index (cdi*, selic*, ipca*)",
        "F = prod over the business days d of [1 + ((1 + I_d)^(1/252) - 1) * rate]",
        "B3 DI methodology (daily rate times the percentage), not the (1 + rate*CDI)^(du/252) shortcut. "
        "I_d is the projected CDI of day d (cdi*, selic*) or the IPCA of its year (ipca*).",
    ),
    (
        "Index plus spread (cdi+, selic+, ipca+)",
        "F = prod over the business days d of (1 + I_d)^(1/252) * (1 + rate)^(du/252)",
        "I_d is the projected CDI of day d (cdi+, selic+) or the IPCA of its year (ipca+).",
    ),
    ("Fixed rate (pre)", "F = (1 + rate)^(du/252)", "252 business days a year."),
    ("Gross annualized", "g = F^(252/du) - 1", ""),
    (
        "Custody fee (Tesouro Direto)",
        f"F_fee = F * (1 - f)^(dc/365), f = {finance.TESOURO_CUSTODY_FEE} a year",
        f"B3 fee of {finance.TESOURO_CUSTODY_FEE:.2%} a year; Tesouro Selic pays it on the excess over BRL "
        f"{finance.TESOURO_SELIC_CUSTODY_EXEMPT_UP_TO:,.0f} only (f = 0.002 x excess / amount); Renda+ and "
        "Educa+ held to maturity pay none.",
    ),
    (
        "Coupon bonds (Tesouro com Juros Semestrais, NTN-B, NTN-F)",
        "price = sum of flows / (1 + rate)^(du_k/252); net = the IRR of the after-tax flows",
        "NTN-F: 4.880885% of face each 1 January and 1 July; NTN-B: 2.956301% of the IPCA-updated value "
        "every six months back from maturity. Each coupon pays income tax at the bracket of its own days "
        "held; the last flow also on the principal's gain over the price.",
    ),
    (
        "Net of IOF and income tax",
        "F_net = 1 + (F_fee - 1) * (1 - iof(dc)) * (1 - t(dc)); net_annualized_return = F_net^(252/du) - 1",
        "iof from iof_table (Decreto 6.306/2007) for dc of 1..29 days, on every product (tax-free too), "
        "then t from income_tax_table on the income minus IOF; t = 0 for tax_free bonds; no tax on a loss.",
    ),
    (
        "Tax-equivalent rate (net_return_cdi_percent)",
        "find p: 1 + (prod_d [1 + ((1 + CDI_d)^(1/252) - 1) * p] - 1) * (1 - iof(dc)) * (1 - t(dc)) = F_net",
        "The share of the projected CDI a taxed CDB over the same dates (same IOF and income tax) must pay "
        "to net the same as the bond: compares an LCI, a CDB and a Tesouro bond at a glance. 1.1 = 110%.",
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
        "P = 1 - CDR(rating notch, T years); geometric interpolation of survival between whole years",
        "S&P Global emerging-markets average cumulative default rates (2024 study, Table 25), each letter "
        "row at its middle notch, geometric between rows. National-scale ratings (brAA, AA(bra), AA.br) are "
        "placed on the global scale (Austin table: brAAA -> BB+, brAA -> BB, brA -> BB-, ...; the + and - "
        "notches a third of a notch apart), so every notch differs. Federal bonds (Tesouro Direto `td` and "
        "`tpf` bought from a broker) are the sovereign's, domestic risk-free: 1. A historical frequency, not "
        "a forecast. covered_payment_probability = P + sum over default months of the default "
        "probability x the share of what is owed then within BRL 250,000 x 0.999 on FGC-covered offers "
        "(1 - (1 - P) x 0.001 while the claim stays under the limit).",
    ),
)

HOW_TO_ANSWER = (
    "For 'where should I put BRL X for N years?': call list_bonds with min_maturity/max_maturity around "
    "today + N years (today is in every result), amount=X and sort='net_return'; rating_min (e.g. "
    "'brAA') keeps only issuers rated at least that on the national scale (federal bonds always pass).",
    "Compare net_annualized_return (after tax), net_return_cdi_percent (tax-equivalent % of CDI), "
    "real_annualized_return (above inflation), liquidity_days, grace_period_days, "
    "payment_probability, fgc_protection and early_withdrawal; projection.net_amount is what X becomes.",
    "Call project_bond(bond_id, amount) for the step-by-step figures of a chosen bond.",
    "Without an API key the reply is a preview of at most 5 bonds (status 'preview'): say so to the user.",
    "Keyed calls must be 5 seconds apart; on 'rate_limited', wait 5 seconds and call again.",
    "These are projections from market expectations, not guarantees; this is not personalised advice.",
)

SOURCES = (
    "Offers: Tesouro Transparente (Tesouro Direto prices and rates CSV) and broker feeds.",
    "Projections: BCB Focus market expectations survey (Olinda OData: Selic median per Copom meeting, "
    "annual Selic and IPCA medians).",
    f"Copom meeting dates: {finance.COPOM_SOURCE}.",
    "Current rates: BCB SGS (Selic target 432, CDI 4389, IPCA 12 months 13522).",
    "Income tax: Lei 11.033/2004 art. 1 (regressive table). IOF: Decreto 6.306/2007. Default rates: S&P "
    "Global 2024 study.",
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
        iof_table=[
            IofDay(calendar_days=day, rate=finance.iof_rate(day))
            for day in range(1, len(finance.IOF_PERCENT_BY_DAY) + 1)
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
