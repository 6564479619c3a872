"""The FGC covers principal plus interest up to BRL 250,000: `covered_payment_probability` counts the
share of what is owed on the default date, and `fgc_covered_share` says how much of what is owed at
maturity is covered (issue 43, item 3)."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from bonds import finance
from bonds.rendering import BOND_FIELDS
from tests.bonds.test_assumptions import snapshot
from tests.bonds.test_list_api import URL, bearer

YEARS = 5.0


def survival(rating: str):
    return lambda t: finance.payment_probability(rating, t, national=True)


def covered(amount: float, growth: float, rating: str = "brB") -> float:
    issuer = finance.payment_probability(rating, YEARS, national=True)
    return finance.covered_payment_probability(
        issuer, fgc_protection=True, amount=amount, growth=growth, years=YEARS, survival=survival(rating)
    )


def test_the_covered_share_is_what_the_limit_covers_of_what_is_owed_at_maturity():
    # BRL 200,000 at 136% of CDI for five years grows to about BRL 404,000: 61.9% of it is covered.
    assert finance.fgc_covered_share(amount=200_000, growth=2.02, fgc_protection=True) == pytest.approx(
        250_000 / 404_000
    )
    assert finance.fgc_covered_share(amount=1_000, growth=2.02, fgc_protection=True) == 1.0
    assert finance.fgc_covered_share(amount=1_000, growth=2.02, fgc_protection=False) is None


def test_within_the_limit_the_fgc_makes_payment_at_least_0999():
    issuer = finance.payment_probability("brB", YEARS, national=True)
    assert covered(1_000, 2.02) == pytest.approx(1 - (1 - issuer) * finance.FGC_SHORTFALL)
    assert covered(1_000, 2.02) >= 0.999


def test_above_the_limit_a_default_is_covered_only_for_the_share_owed_then():
    issuer = finance.payment_probability("brB", YEARS, national=True)
    result = covered(200_000, 2.02)
    at_maturity = 250_000 / 404_000
    # A default before maturity owes less than at maturity, so more of it is covered; never all of it.
    assert issuer + (1 - issuer) * at_maturity * 0.999 < result < issuer + (1 - issuer) * 0.999
    assert result < 0.99
    assert covered(300_000, 2.02) < result < covered(150_000, 2.02)


def test_an_unrated_issuer_above_the_limit_counts_as_defaulting_on_the_whole_claim():
    result = finance.covered_payment_probability(None, fgc_protection=True, amount=200_000, growth=2.02)
    assert result == pytest.approx(250_000 / 404_000 * 0.999)


@pytest.mark.django_db
def test_an_offer_whose_minimum_outgrows_the_limit_lists_its_covered_share(client, key):
    from bonds.figures import bond_returns_recompute
    from bonds.offers import bond_offers_upsert
    from bonds.providers.base import Offer

    snapshot()
    maturity = timezone.localdate() + timedelta(days=5 * 365)
    common = {"bank": 77, "bank_name": "Banco Inter", "rating": "brAA", "rating_given": True,
              "product": "cdb", "index": "cdi*", "rate": 1.36, "maturity_date": maturity,
              "fgc_protection": True}  # fmt: skip
    bond_offers_upsert(source="t", offers=[
        Offer(natural_key="big", name="CDB 136% CDI (200 mil)", min_investment=200_000.0, **common),
        Offer(natural_key="small", name="CDB 136% CDI", min_investment=1_000.0, **common),
    ])  # fmt: skip
    bond_returns_recompute()
    rows = {row["name"]: row for row in client.get(URL, **bearer(key)).json()["bonds"]}
    big, small = rows["CDB 136% CDI (200 mil)"], rows["CDB 136% CDI"]
    assert small["fgc_covered_share"] == 1.0 and small["covered_payment_probability"] >= 0.999
    assert 0.55 < big["fgc_covered_share"] < 0.7
    assert big["payment_probability"] < big["covered_payment_probability"] < 0.999
    for locale, separator in ((None, ","), ("pt-BR", ";")):
        query = {"format": "csv", **({"locale": locale} if locale else {})}
        text = client.get(URL, query, **bearer(key)).content.decode("utf-8-sig")
        table = list(csv.reader(io.StringIO(text), delimiter=separator))
        column = table[0].index("fgc_covered_share")
        assert table[0][:16] == list(BOND_FIELDS) and column == 16
        cells = {line[0]: line[column] for line in table[1:]}
        expected = f"{big['fgc_covered_share']:.10f}".rstrip("0")
        assert cells["CDB 136% CDI (200 mil)"] == (expected.replace(".", ",") if locale else expected)
