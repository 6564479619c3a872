"""The demo market: offers priced as spreads over the demo's own projected curve, by product, issuer
type and rating, so the demo ranks the way a real market would.

* Taxed bank paper (CDB, LF, LC) pays a share of the CDI by credit tier and term; its fixed-rate and
  CDI-plus versions pay the same gross over the same dates (no arbitrage against the CDI path).
* Tax-free paper (LCI, LCA, CRI, CRA, incentivized debentures) pays less than the taxed paper of the
  same tier and term: its gross is a fraction (92-99%) of that paper's net, so its tax-equivalent
  share of the CDI stays below the taxed one.
* IPCA+ offers are priced over the Tesouro IPCA+ curve: top-rated (national AAA) issuers at or below
  it, lower ratings above it.
* Debentures, CRIs and CRAs are issued by companies (with their own ratings) and sold by brokers;
  LFs have the legal minimum of BRL 50,000; a few short CDBs mature within 30 days, so IOF shows.
Pure functions of (today, seed): the same day gives the same offers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import pairwise

from bonds import finance
from bonds.providers.base import Offer

XP, BTG = (102, "XP Investimentos"), (208, "BTG Pactual")
# Bank issuers: (code, name, rating as the issuer carries it, credit tier).
BANK_TIERS: dict[int, str] = {
    1: "AAA",
    341: "AAA",
    237: "AAA",
    33: "AAA",
    104: "AAA",
    208: "AA",
    77: "AA",
    655: "AA",
    336: "A",
    218: "BBB",
    630: "BB",
}
# Companies behind debentures, CRIs and CRAs: (name, rating, tier, infrastructure: Lei 12.431).
COMPANIES: dict[str, tuple[tuple[str, str, str, bool], ...]] = {
    "deb": (
        ("Sabesp", "brAAA", "AAA", True),
        ("Petrobras", "brAAA", "AAA", False),
        ("Localiza", "AAA(bra)", "AAA", False),
        ("Rumo", "brAA+", "AA", True),
        ("Eneva", "brAA", "AA", True),
        ("Movida", "brAA-", "AA", False),
        ("Unidas", "brA+", "A", False),
        ("Ecorodovias", "AA.br", "AA", True),
    ),
    "cri": (
        ("Cyrela", "brAAA", "AAA", False),
        ("Rede D'Or", "brAAA", "AAA", False),
        ("MRV", "brAA", "AA", False),
        ("Direcional", "brA+", "A", False),
        ("JHSF", "brA", "A", False),
    ),
    "cra": (
        ("Raízen", "AAA(bra)", "AAA", False),
        ("BRF", "brAA+", "AA", False),
        ("São Martinho", "brAA+", "AA", False),
        ("Camil", "brAA", "AA", False),
        ("Minerva", "brAA-", "AA", False),
    ),
}
# Share of the CDI a taxed CDB pays by tier (one year), plus 1.5 points a year of term up to 5 years.
CDI_SHARE = {"AAA": 1.00, "AA": 1.06, "A": 1.12, "BBB": 1.20, "BB": 1.28}
TERM_SHARE_PER_YEAR = 0.015
# Real-rate spread over the Tesouro IPCA+ curve by tier (decimal): AAA at or below it.
IPCA_SPREAD = {
    "AAA": (-0.0030, -0.0005),
    "AA": (0.0020, 0.0060),
    "A": (0.0060, 0.0120),
    "BBB": (0.0120, 0.0200),
    "BB": (0.0200, 0.0300),
}
# Tesouro IPCA+ real rates on sale (the demo's Tesouro offers), as a curve by maturity.
TESOURO_IPCA_CURVE = (
    (date(2029, 5, 15), 0.0805),
    (date(2032, 8, 15), 0.0809),
    (date(2040, 8, 15), 0.0745),
    (date(2050, 8, 15), 0.0720),
)
TAX_FREE_SHARE = (0.92, 0.99)  # tax-free gross as a share of the comparable taxed net
MINIMUMS = {
    "cdb": (100, 500, 1000, 5000),
    "lci": (1000, 5000, 10000),
    "lca": (1000, 5000, 10000),
    "lf": (50000, 100000),
    "deb": (1000, 5000),
    "cri": (1000, 5000),
    "cra": (1000, 5000),
    "tpf": (1000, 5000),
    "misc": (1000, 5000),
}
# Terms in years offered per product (LCI at least 12 months, LCA 9 months: CMN Res. 5.118/5.119;
# LF at least 2 years).
TERMS = {
    "cdb": (0.5, 1, 2, 3, 5),
    "lci": (1, 2, 3),
    "lca": (0.75, 1, 2, 3),
    "lf": (2, 3, 5),
    "deb": (3, 5, 7, 10),
    "cri": (3, 5, 8),
    "cra": (2, 3, 5),
    "tpf": (3, 6, 14),
    "misc": (1, 2),
}
INDEXES = {
    "cdb": ("cdi*", "pre", "ipca+", "cdi+"),
    "lci": ("cdi*", "pre", "ipca+"),
    "lca": ("cdi*", "pre", "ipca+"),
    "lf": ("cdi*", "cdi+", "ipca+", "pre"),
    "deb": ("ipca+", "cdi+", "pre"),
    "cri": ("ipca+", "cdi*"),
    "cra": ("ipca+", "cdi*", "pre"),
    "tpf": ("selic+", "ipca+", "pre"),
    "misc": ("ipca*", "selic*", "cdi*"),
}
PRODUCT_CYCLE = (
    "cdb",
    "lci",
    "cdb",
    "lca",
    "deb",
    "cdb",
    "lf",
    "cri",
    "cra",
    "cdb",
    "tpf",
    "misc",
    "lci",
    "lca",
    "deb",
)
PREFIX = {
    "cdb": "CDB",
    "lci": "LCI",
    "lca": "LCA",
    "lf": "LF",
    "deb": "Debênture",
    "cri": "CRI",
    "cra": "CRA",
    "tpf": "NTN/LTN secundário",
    "misc": "LC",
}


@dataclass(frozen=True)
class Market:
    today: date
    projection: finance.Projection

    def cdi_factor(self, share: float, maturity: date) -> float:
        return finance.gross_factor("cdi*", share, self.today, maturity, self.projection) or 1.0

    def annual(self, factor: float, maturity: date) -> float:
        return finance.annualized(factor, max(1, finance.business_days(self.today, maturity)))

    def taxed_share(self, tier: str, maturity: date) -> float:
        years = (maturity - self.today).days / 365
        return CDI_SHARE[tier] + TERM_SHARE_PER_YEAR * min(years, 5.0)

    def net_of(self, index: str, rate: float, maturity: date) -> float:
        result = finance.offer_returns(
            index=index,
            rate=rate,
            start=self.today,
            maturity=maturity,
            projection=self.projection,
            tax_free=False,
        )
        return result.net_annualized or 0.0

    def inflation(self, maturity: date) -> float:
        factor = finance.inflation_factor(self.today, maturity, self.projection) or 1.0
        return self.annual(factor, maturity)


def tesouro_ipca_rate(maturity: date) -> float:
    """The Tesouro IPCA+ real rate of the demo's curve at a maturity (linear, flat at the ends)."""
    points = TESOURO_IPCA_CURVE
    if maturity <= points[0][0]:
        return points[0][1]
    for (low_day, low), (high_day, high) in pairwise(points):
        if maturity <= high_day:
            return low + (high - low) * (maturity - low_day).days / (high_day - low_day).days
    return points[-1][1]


def price(
    market: Market, *, index: str, tier: str, maturity: date, tax_free: bool, rng: random.Random
) -> float:
    """The rate of an offer: taxed paper by tier and term over the curve; tax-free paper below it."""
    # Tax-free paper is priced off the cheapest taxed paper of its tier and term.
    jitter = -0.01 if tax_free else rng.uniform(-0.01, 0.01)
    share = market.taxed_share(tier, maturity) + jitter
    if index == "ipca+":
        low, high = IPCA_SPREAD[tier]
        taxed = tesouro_ipca_rate(maturity) + (low if tax_free else rng.uniform(low, high))
        if not tax_free:
            return round(taxed, 4)
        target = market.net_of("ipca+", taxed, maturity) * rng.uniform(*TAX_FREE_SHARE)
        return round((1 + target) / (1 + market.inflation(maturity)) - 1, 4)
    gross = market.annual(market.cdi_factor(share, maturity), maturity)
    if index == "cdi*":
        if not tax_free:
            return round(share, 3)
        kept = 1 - finance.income_tax_rate((maturity - market.today).days)
        return round(share * kept * rng.uniform(*TAX_FREE_SHARE), 3)
    if index == "pre":
        rate = market.net_of("pre", gross, maturity) * rng.uniform(*TAX_FREE_SHARE) if tax_free else gross
        return round(rate, 4)
    if index == "cdi+":
        return round((1 + gross) / (1 + market.annual(market.cdi_factor(1.0, maturity), maturity)) - 1, 4)
    if index == "selic+":
        return round(rng.uniform(0.0005, 0.0015), 4)
    if index == "selic*":
        return round(share, 2)
    return round(rng.uniform(1.00, 1.10), 2)  # ipca*: a rare letter of exchange paying a share of IPCA


def _label(index: str, rate: float) -> str:
    return {
        "cdi*": f"{rate * 100:.1f}% CDI",
        "cdi+": f"CDI + {rate * 100:.2f}%",
        "ipca*": f"{rate * 100:.0f}% IPCA",
        "ipca+": f"IPCA + {rate * 100:.2f}%",
        "selic*": f"{rate * 100:.0f}% Selic",
        "selic+": f"Selic + {rate * 100:.2f}%",
        "pre": f"{rate * 100:.2f}% a.a.",
    }[index]


TPF_NAMES = {"ipca+": "NTN-B", "pre": "LTN", "selic+": "LFT"}


def _name(product: str, index: str, issuer_name: str, rate: float, maturity: date) -> str:
    if product == "tpf":
        return f"{TPF_NAMES[index]} {maturity:%m/%Y} (secundário) {_label(index, rate)}"
    return f"{PREFIX[product]} {issuer_name} {_label(index, rate)} {maturity:%m/%Y}"


def market_offers(*, market: Market, count: int, banks: dict[int, str], seed: int) -> list[Offer]:
    """`count` offers of banks, companies (through brokers) and federal bonds (through brokers), plus
    three short CDBs maturing within 30 days."""
    rng = random.Random(seed)  # noqa: S311 (reproducible demo data, not secrets)
    offers = [_market_offer(market, number, banks, rng) for number in range(1, count + 1)]
    return offers + _short_cdbs(market.today, banks)


def _market_offer(market: Market, number: int, banks: dict[int, str], rng: random.Random) -> Offer:
    """The `number`th offer of the cycle of products; draws from `rng` in a fixed order."""
    product = PRODUCT_CYCLE[number % len(PRODUCT_CYCLE)]
    index = INDEXES[product][(number // len(PRODUCT_CYCLE)) % len(INDEXES[product])]
    years = rng.choice(TERMS[product])
    maturity = finance.next_business_day(
        market.today + timedelta(days=round(years * 365) + rng.randint(0, 20))
    )
    bank, bank_name, issuer_name, tier, rating, tax_free = _issuer(number, product, index, banks)
    rate = price(market, index=index, tier=tier, maturity=maturity, tax_free=tax_free, rng=rng)
    if product == "tpf" and index == "ipca+":
        rate = round(tesouro_ipca_rate(maturity) - rng.uniform(0.0005, 0.0015), 4)  # the broker's margin
    redeemable = product in {"cdb", "misc", "lci", "lca"} and index == "cdi*" and number % 2 == 0
    grace = {"lci": 365, "lca": 270}.get(product, 0) if redeemable else None
    return Offer(
        natural_key=f"demo-{number:04d}",
        name=_name(product, index, issuer_name, rate, maturity),
        bank=bank,
        bank_name=bank_name,
        product=product,
        index=index,
        rate=rate,
        maturity_date=maturity,
        fgc_protection=product in {"cdb", "lci", "lca", "misc"},
        tax_free=tax_free,
        exclusive=product == "lf" or number % 11 == 0,
        min_investment=float(rng.choice(MINIMUMS[product])),
        early_withdrawal=redeemable or product == "tpf",
        rating=rating,
        rating_given=rating is not None,
        liquidity_days=(0 if redeemable else 1 if product == "tpf" else None),
        grace_period_days=grace,
    )


def _issuer(
    number: int, product: str, index: str, banks: dict[int, str]
) -> tuple[int, str, str, str, str | None, bool]:
    """Who sells the paper and who owes it: (bank, bank_name, issuer_name, tier, rating, tax_free)."""
    bank_codes = sorted(BANK_TIERS)
    code = bank_codes[number % len(bank_codes)]
    bank, bank_name, tier, rating = code, banks[code], BANK_TIERS[code], None
    tax_free = product in {"lci", "lca"}
    issuer_name = bank_name
    if product in COMPANIES:  # a company's paper, sold by a broker, with the company's rating
        issuer_name, rating, tier, infrastructure = COMPANIES[product][number % len(COMPANIES[product])]
        bank, bank_name = XP if number % 2 else BTG
        tax_free = product in {"cri", "cra"} or (infrastructure and index == "ipca+")
    elif product == "tpf":  # federal bonds in a broker's secondary market: the sovereign's
        bank, bank_name = XP if number % 2 else BTG
        issuer_name, rating, tier = "Tesouro Nacional", "brAAA", "AAA"
    return bank, bank_name, issuer_name, tier, rating, tax_free


def _short_cdbs(today: date, banks: dict[int, str]) -> list[Offer]:
    """Three CDBs maturing within 30 days of an order's settlement: IOF shows in their returns."""
    settles = finance.settlement_date(today)
    offers = []
    for number, days in enumerate((20, 25, 29), start=1):
        code = (1, 341, 104)[number - 1]
        maturity = _business_day_on_or_before(settles + timedelta(days=days))
        rate = round(1.0 + 0.01 * number, 2)
        offers.append(
            Offer(
                natural_key=f"demo-short-{number}",
                name=f"CDB {banks[code]} {_label('cdi*', rate)} {days} dias",
                bank=code,
                bank_name=banks[code],
                product="cdb",
                index="cdi*",
                rate=rate,
                maturity_date=maturity,
                fgc_protection=True,
                min_investment=1000.0,
            )
        )
    return offers


def _business_day_on_or_before(day: date) -> date:
    """A maturity paid that very day (not rolled to the next business day), so IOF still shows."""
    while not finance.is_business_day(day):
        day -= timedelta(days=1)
    return day
