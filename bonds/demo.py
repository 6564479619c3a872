"""Demo bonds for `manage.py load_demo`: a few hundred realistic offers of several banks, every
product and index, a projection snapshot, and computed returns. Deterministic and offline."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import TextIO

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bonds.models import Issuer, ProjectionSnapshot
from bonds.providers.base import Offer
from bonds.providers.tesouro import TESOURO_BANK_CODE, TESOURO_BANK_NAME
from bonds.services import bond_offers_upsert, bond_returns_recompute

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
# Product -> (indexes offered, FGC cover, tax free, name prefix)
PRODUCTS: dict[str, tuple[tuple[str, ...], bool, bool, str]] = {
    "cdb": (("cdi*", "pre", "ipca+", "cdi+"), True, False, "CDB"),
    "lci": (("cdi*", "pre", "ipca+"), True, True, "LCI"),
    "lca": (("cdi*", "pre", "ipca+"), True, True, "LCA"),
    "cri": (("ipca+", "cdi+", "cdi*"), False, True, "CRI"),
    "cra": (("ipca+", "cdi+", "pre"), False, True, "CRA"),
    "deb": (("ipca+", "cdi+", "pre"), False, False, "Debênture"),
    "lf": (("cdi*", "cdi+", "ipca+", "pre"), False, False, "LF"),
    "tpf": (("selic+", "ipca+", "pre"), False, False, "NTN/LTN secundário"),
    "misc": (("ipca*", "selic*", "cdi*"), True, False, "LC"),
}
RATE_RANGES = {
    "cdi*": (0.90, 1.25),
    "cdi+": (0.004, 0.030),
    "ipca*": (1.00, 1.15),
    "ipca+": (0.055, 0.085),
    "selic*": (0.95, 1.05),
    "selic+": (0.0005, 0.0025),
    "pre": (0.120, 0.165),
}
TESOURO = (
    ("Tesouro Selic", "selic+", (2029, 3, 1), 0.0007),
    ("Tesouro Selic", "selic+", (2031, 3, 1), 0.0010),
    ("Tesouro Prefixado", "pre", (2029, 1, 1), 0.1404),
    ("Tesouro Prefixado", "pre", (2032, 1, 1), 0.1382),
    ("Tesouro Prefixado com Juros Semestrais", "pre", (2037, 1, 1), 0.1362),
    ("Tesouro IPCA+", "ipca+", (2032, 8, 15), 0.0809),
    ("Tesouro IPCA+", "ipca+", (2040, 8, 15), 0.0745),
    ("Tesouro IPCA+ com Juros Semestrais", "ipca+", (2040, 8, 15), 0.0731),
    ("Tesouro Renda+ Aposentadoria Extra", "ipca+", (2054, 12, 15), 0.0716),
    ("Tesouro Educa+", "ipca+", (2031, 12, 15), 0.0742),
    ("Tesouro Reserva", "selic*", None, 1.0),
)
# Focus-like medians (in % a year) and current SGS-like rates for the demo snapshot.
DEMO_SELIC = {"2026": 14.25, "2027": 12.25, "2028": 10.5, "2029": 10.0, "2030": 10.0}
DEMO_IPCA = {"2026": 4.46, "2027": 4.0, "2028": 3.75, "2029": 3.5, "2030": 3.5}


def demo_offers(*, count: int = 300, today: date | None = None, seed: int = 2026) -> list[Offer]:
    """`count` bank offers plus the Tesouro Direto ones, the same for the same day and seed."""
    rng = random.Random(seed)  # noqa: S311 (reproducible demo data, not secrets)
    today = today or timezone.localdate()
    offers: list[Offer] = []
    products = list(PRODUCTS)
    for number in range(1, count + 1):
        code, bank_name, _, _ = BANKS[number % len(BANKS)]
        product = products[number % len(products)]
        indexes, fgc, tax_free, prefix = PRODUCTS[product]
        index = indexes[(number // len(products)) % len(indexes)]
        low, high = RATE_RANGES[index]
        rate = round(rng.uniform(low, high), 4 if index.endswith("+") or index == "pre" else 2)
        minimum_days = 270 if product == "lca" else 365 if product == "lci" else 90
        maturity = today + timedelta(days=rng.randint(minimum_days, 365 * 8))
        label = {
            "cdi*": f"{rate * 100:.0f}% CDI",
            "cdi+": f"CDI + {rate * 100:.2f}%",
            "ipca*": f"{rate * 100:.0f}% IPCA",
            "ipca+": f"IPCA + {rate * 100:.2f}%",
            "selic*": f"{rate * 100:.0f}% Selic",
            "selic+": f"Selic + {rate * 100:.2f}%",
            "pre": f"{rate * 100:.2f}% a.a.",
        }[index]
        offers.append(
            Offer(
                natural_key=f"demo-{number:04d}",
                name=f"{prefix} {bank_name} {label} {maturity:%m/%Y}",
                bank=code,
                bank_name=bank_name,
                product=product,
                index=index,
                rate=rate,
                maturity_date=maturity,
                fgc_protection=fgc,
                tax_free=tax_free or (product == "deb" and number % 3 == 0),
                exclusive=number % 11 == 0,
                min_investment=float(rng.choice((100, 500, 1000, 1000, 5000, 10000, 25000))),
                early_withdrawal=index == "cdi*" and product in {"cdb", "misc"} and number % 2 == 0,
            )
        )
    for label, index, maturity, rate in TESOURO:
        maturity_date = date(*maturity) if maturity else today + timedelta(days=365 * 3)
        offset = 19 if "Renda+" in label else 4 if "Educa+" in label else 0
        offers.append(
            Offer(
                natural_key=f"demo-td|{label}|{maturity_date.isoformat() if maturity else 'reserva'}",
                name=f"{label} {maturity_date.year - offset}" if maturity else label,
                bank=TESOURO_BANK_CODE,
                bank_name=TESOURO_BANK_NAME,
                product="td",
                index=index,
                rate=rate,
                maturity_date=maturity_date,
                min_investment=35.0,
                early_withdrawal=True,
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
    today = today or timezone.localdate()
    snapshot, _ = ProjectionSnapshot.objects.get_or_create(
        date=today,
        defaults={
            "selic_by_year": DEMO_SELIC,
            "ipca_by_year": DEMO_IPCA,
            "focus_date": today,
            "selic_current": 14.25,
            "cdi_current": 14.15,
            "ipca_12m": 4.68,
        },
    )
    return snapshot


@transaction.atomic
def load(*, stdout: TextIO, count: int = 300) -> None:
    issuers_load()
    snapshot_load()
    counts = bond_offers_upsert(source=SOURCE, offers=demo_offers(count=count))
    recomputed = bond_returns_recompute()
    stdout.write(
        f"  demo bonds: {counts.offers} offers ({counts.created} new), {recomputed} with new returns;"
        f" list them at {settings.PONTE_BASE_URL}/bonds/api/\n"
    )
