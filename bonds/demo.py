"""Demo bonds for `manage.py load_demo`: a few hundred offers of banks, companies (through brokers) and
the Treasury, every product and index, priced over the demo's projected curve (bonds.demo_market),
a projection snapshot, and computed returns. Deterministic and offline.

The demo's Tesouro Direto titles stand in for the Tesouro provider's: they are stored as its offers
(source `tesouro`, its natural keys), so a real refresh updates them in place, keeping their ids, and
retires those the real file lacks, instead of listing every title twice. Once a real Tesouro refresh
has succeeded the demo leaves Tesouro titles alone."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import TextIO

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bonds.demo_market import Market, market_offers
from bonds.figures import bond_returns_recompute
from bonds.models import Issuer, ProjectionSnapshot, RefreshRun
from bonds.offers import bond_offers_upsert
from bonds.projections import projection_of
from bonds.providers import tesouro
from bonds.providers.base import Offer
from bonds.providers.tesouro import TESOURO_BANK_CODE, TESOURO_BANK_NAME

SOURCE = "demo"
# (code, name, rating on the national scale, agency); "-" is a rating omitted for the bank.
BANKS: tuple[tuple[int, str, str, str], ...] = (
    (1, "Banco do Brasil", "brAAA", "S&P"),
    (341, "Itaú Unibanco", "brAAA", "S&P"),
    (237, "Bradesco", "AAA(bra)", "Fitch"),
    (33, "Santander Brasil", "AAA.br", "Moody's Local"),
    (104, "Caixa Econômica Federal", "brAAA", "S&P"),
    (208, "BTG Pactual", "AA+(bra)", "Fitch"),
    (77, "Banco Inter", "brAA", "S&P"),
    (336, "Banco C6", "brA+", "S&P"),
    (655, "Banco Votorantim", "AA.br", "Moody's Local"),
    (218, "Banco BS2", "brBBB+", "Austin"),
    (630, "Banco Letsbank", "brBB", "Austin"),
    (102, "XP Investimentos", "-", ""),
)
# Tesouro Direto on sale: (type, index, maturity, rate). Prefixado rates are set from the demo's
# projected CDI (the curve's average over the term plus a term premium); None here.
TESOURO = (
    ("Tesouro Selic", "selic+", (2029, 3, 1), 0.0007),
    ("Tesouro Selic", "selic+", (2031, 3, 1), 0.0010),
    ("Tesouro Prefixado", "pre", (2029, 1, 1), None),
    ("Tesouro Prefixado", "pre", (2032, 1, 1), None),
    ("Tesouro Prefixado com Juros Semestrais", "pre", (2037, 1, 1), None),
    ("Tesouro IPCA+", "ipca+", (2029, 5, 15), 0.0805),
    ("Tesouro IPCA+", "ipca+", (2032, 8, 15), 0.0809),
    ("Tesouro IPCA+", "ipca+", (2040, 8, 15), 0.0745),
    ("Tesouro IPCA+ com Juros Semestrais", "ipca+", (2050, 8, 15), 0.0720),
    ("Tesouro Renda+ Aposentadoria Extra", "ipca+", (2054, 12, 15), 0.0716),
    ("Tesouro Educa+", "ipca+", (2031, 12, 15), 0.0742),
    ("Tesouro Reserva", "selic*", None, 1.0),
)
PREFIXADO_TERM_PREMIUM = 0.004
# Focus-like medians (in % a year), the per-meeting path and current SGS-like rates for the snapshot.
DEMO_SELIC = {"2026": 14.0, "2027": 12.25, "2028": 10.5, "2029": 10.0, "2030": 10.0}
DEMO_IPCA = {"2026": 4.46, "2027": 4.0, "2028": 3.75, "2029": 3.5, "2030": 3.5}
DEMO_MEETINGS = {"R8/2026": 14.0, "R1/2027": 13.5, "R2/2027": 13.0}
DEMO_CURRENT = {"selic_current": 14.25, "cdi_current": 14.15, "cdi_gap": 0.10, "ipca_12m": 4.68}
# The TR in force in the demo (SGS 226 ran about 0.17% a month in late 2026), dated the snapshot's day.
DEMO_TR_MONTHLY = 0.1698


def demo_snapshot(today: date) -> ProjectionSnapshot:
    return ProjectionSnapshot(
        date=today,
        selic_by_year=DEMO_SELIC,
        ipca_by_year=DEMO_IPCA,
        focus_date=today,
        selic_by_meeting=DEMO_MEETINGS,
        meetings_focus_date=today,
        tr_monthly=DEMO_TR_MONTHLY,
        tr_date=today,
        **DEMO_CURRENT,
    )


def demo_offers(
    *, count: int = 300, today: date | None = None, seed: int = 2026, with_tesouro: bool = True
) -> list[Offer]:
    """`count` market offers, three short CDBs and (`with_tesouro`) the Tesouro Direto ones: the
    same for the same day and seed."""
    today = today or timezone.localdate()
    market = Market(today=today, projection=projection_of(demo_snapshot(today)))
    banks = {code: name for code, name, _, _ in BANKS}
    offers = market_offers(market=market, count=count, banks=banks, seed=seed)
    return offers + tesouro_offers(market) if with_tesouro else offers


def tesouro_offers(market: Market) -> list[Offer]:
    """The Tesouro Direto titles on sale, keyed as the Tesouro provider keys its offers."""
    offers = []
    for label, index, maturity, rate in TESOURO:
        # Tesouro Reserva's maturity is a stand-in three years ahead, fixed for the year so its
        # identity (type and maturity) holds from one load to the next.
        maturity_date = date(*maturity) if maturity else date(market.today.year + 3, 3, 1)
        if rate is None:  # Prefixado: the curve's average CDI over the term plus a term premium
            rate = round(
                market.annual(market.cdi_factor(1.0, maturity_date), maturity_date) + PREFIXADO_TERM_PREMIUM,
                4,
            )
        offset = 19 if "Renda+" in label else 4 if "Educa+" in label else 0
        terms = tesouro.title_terms(label.lower(), Decimal(3500))  # R$ 35 unless the title says otherwise
        offers.append(
            Offer(
                natural_key=tesouro.natural_key(label, maturity_date),
                name=f"{label} {maturity_date.year - offset}" if maturity else label,
                bank=TESOURO_BANK_CODE,
                bank_name=TESOURO_BANK_NAME,
                product="td",
                index=index,
                rate=rate,
                maturity_date=maturity_date,
                **terms,
            )
        )
    return offers


def issuers_load() -> None:
    Issuer.objects.update_or_create(
        code=TESOURO_BANK_CODE,
        defaults={
            "name": TESOURO_BANK_NAME,
            "rating": "brAAA",
            "rating_agency": "sovereign (national scale)",
            "sovereign": True,
        },
    )
    for code, name, rating, agency in BANKS:
        Issuer.objects.update_or_create(
            code=code, defaults={"name": name, "rating": rating, "rating_agency": agency}
        )


def snapshot_load(*, today: date | None = None) -> ProjectionSnapshot:
    """The demo's projections for today, unless today already has a snapshot (e.g. a real refresh)."""
    today = today or timezone.localdate()
    existing = ProjectionSnapshot.objects.filter(date=today).first()
    if existing is not None:
        return existing
    snapshot = demo_snapshot(today)
    snapshot.save()
    return snapshot


def tesouro_refreshed() -> bool:
    """Whether a real Tesouro refresh has succeeded (its titles are then the real ones)."""
    return RefreshRun.objects.filter(**{f"outcomes__{tesouro.SOURCE}__ok": True}).exists()


@transaction.atomic
def load(*, stdout: TextIO, count: int = 300) -> None:
    issuers_load()
    snapshot_load()
    today = timezone.localdate()
    market = Market(today=today, projection=projection_of(demo_snapshot(today)))
    counts = bond_offers_upsert(
        source=SOURCE, offers=demo_offers(count=count, today=today, with_tesouro=False)
    )
    if tesouro_refreshed():
        titles = "the Tesouro titles of the last real refresh"
    else:
        loaded = bond_offers_upsert(source=tesouro.SOURCE, offers=tesouro_offers(market))
        titles = f"{loaded.offers} Tesouro titles"
    recomputed = bond_returns_recompute()
    stdout.write(
        f"  demo bonds: {counts.offers} offers ({counts.created} new) and {titles}, {recomputed} with new"
        f" returns; list them at {settings.PONTE_BASE_URL}/bonds/api/\n"
    )
