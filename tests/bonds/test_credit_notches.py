"""Payment probabilities: every national-scale notch distinct and ordered, federal bonds 1, and the
probability within the FGC limit on covered offers."""

from __future__ import annotations

from datetime import date, timedelta
from itertools import pairwise

import pytest

from bonds import finance
from bonds.figures import bond_returns_recompute
from bonds.models import Bond
from bonds.offers import bond_offers_upsert
from bonds.providers.base import Offer

NATIONAL = ["AAA", "AA+", "AA", "AA-", "A+", "A", "A-", "BBB+", "BBB", "BBB-", "BB+", "BB", "BB-", "B+", "B",
            "B-", "CCC", "CC", "C", "D"]  # fmt: skip
START = date(2026, 11, 23)


@pytest.mark.parametrize("years", [0.25, 1, 2.5, 5, 7.3, 10, 20])
@pytest.mark.parametrize("notation", ["br{}", "{}(bra)", "{}.br"])
def test_every_national_notch_pays_more_surely_than_the_next_at_the_same_term(years, notation):
    probabilities = [finance.payment_probability(notation.format(notch), years) for notch in NATIONAL]
    assert all(better > worse for better, worse in pairwise(probabilities))


def test_national_notches_sit_on_austins_global_notch_a_third_apart():
    assert finance.rating_position("brAAA") == 10  # BB+
    assert finance.rating_position("brAA") == 11  # BB
    assert finance.rating_position("brAA+") == pytest.approx(10 + 2 / 3)
    assert finance.rating_position("brA-") == pytest.approx(12 + 1 / 3)
    assert finance.rating_position("brB") == 15  # B-
    assert finance.rating_position("Ba2") == finance.rating_position("BB") == 11
    assert finance.rating_position("xyz") is None and finance.rating_position("-") is None


def test_the_em_table_rows_are_kept_at_their_middle_notches():
    assert finance.cumulative_default_pct(11) == finance.EM_CUMULATIVE_DEFAULT_PCT["BB"]
    assert finance.cumulative_default_pct(14) == finance.EM_CUMULATIVE_DEFAULT_PCT["B"]
    between = finance.cumulative_default_pct(12.5)  # halfway from BB to B, geometrically
    assert between[0] == pytest.approx((0.54 * 2.98) ** 0.5)


def test_covered_probability_is_at_least_0_999_and_the_issuers_elsewhere():
    worst = finance.payment_probability("brCCC", 5)
    assert finance.covered_payment_probability(worst, fgc_protection=True) >= 0.999
    assert finance.covered_payment_probability(None, fgc_protection=True) == pytest.approx(0.999)
    assert finance.covered_payment_probability(worst, fgc_protection=False) == worst
    better = finance.covered_payment_probability(finance.payment_probability("brAA", 5), fgc_protection=True)
    assert better > finance.covered_payment_probability(worst, fgc_protection=True)


def offer(key: str, **values) -> Offer:
    defaults = {
        "natural_key": key,
        "name": f"Offer {key}",
        "bank": 77,
        "bank_name": "Banco Inter",
        "product": "cdb",
        "index": "pre",
        "rate": 0.13,
        "maturity_date": START + timedelta(days=1826),
        "rating_given": True,
    }
    return Offer(**{**defaults, **values})


@pytest.mark.django_db
def test_the_listing_orders_notches_and_covers_fgc_offers():
    offers = [offer(notch, rating=f"br{notch}", fgc_protection=notch != "A") for notch in ("AAA", "AA+", "A")]
    offers.append(offer("deb", product="deb", rating="brAA-"))
    offers.append(offer("ntnb", product="tpf", index="ipca+", rate=0.07, rating="brBBB", name="NTN-B 2035"))
    bond_offers_upsert(source="v3", offers=offers)
    bond_returns_recompute(today=START)
    bonds = {bond.natural_key: bond for bond in Bond.objects.all()}
    aaa, aa_plus, a = bonds["AAA"], bonds["AA+"], bonds["A"]
    assert aaa.payment_probability > aa_plus.payment_probability > a.payment_probability
    assert aaa.covered_payment_probability >= 0.999 and aa_plus.covered_payment_probability >= 0.999
    assert a.covered_payment_probability == a.payment_probability  # not covered
    assert bonds["deb"].covered_payment_probability == bonds["deb"].payment_probability
    assert bonds["ntnb"].payment_probability == bonds["ntnb"].covered_payment_probability == 1.0
