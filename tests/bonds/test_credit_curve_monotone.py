"""The probability of being paid never rises with the term, for every notch (issue 43, item 8): a
property test over every notch, national and global, from 1 day to 30 years."""

from __future__ import annotations

import math
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from bonds import finance
from bonds.finance.credit import GLOBAL_NOTCHES, MOODYS_NOTCHES

NATIONAL = [f"br{letters}{modifier}" for letters in ("AAA", "AA", "A", "BBB", "BB", "B", "CCC")
            for modifier in ("+", "", "-")] + ["brCC", "brC"]  # fmt: skip
RATINGS = [
    rating
    for rating in (*NATIONAL, *GLOBAL_NOTCHES, *(m.capitalize() for m in MOODYS_NOTCHES))
    if finance.payment_probability(rating, 1) is not None  # brAAA has no + or -
]
DAY = 1 / 365.25


@settings(max_examples=400, deadline=None)
@given(
    rating=st.sampled_from(RATINGS),
    days=st.integers(min_value=1, max_value=30 * 365),
    later=st.integers(min_value=1, max_value=30 * 365),
)
def test_the_payment_probability_never_rises_with_the_term(rating, days, later):
    short = finance.payment_probability(rating, days * DAY)
    long = finance.payment_probability(rating, (days + later) * DAY)
    assert long <= short + 1e-12, (rating, days, days + later, short, long)


def test_every_notch_year_by_year_to_thirty_years():
    assert len(RATINGS) >= 55
    for rating in RATINGS:
        curve = [finance.payment_probability(rating, years) for years in (1 / 365, *range(1, 31))]
        assert all(b <= a + 1e-12 for a, b in pairwise(curve)), (rating, curve)


def test_the_c_notches_no_longer_rise_from_three_to_four_years():
    for rating in ("brC", "C", "brCC", "CCC-"):
        assert finance.payment_probability(rating, 4) <= finance.payment_probability(rating, 3)


def test_a_worse_notch_still_never_pays_more_at_the_same_term():
    for years in (0.5, 1, 3, 4, 7, 10, 20, 30):
        curve = [finance.payment_probability(r, years) for r in GLOBAL_NOTCHES]
        assert all(b <= a + 1e-12 for a, b in pairwise(curve)), (years, curve)
        assert not any(math.isnan(p) for p in curve)


def test_the_listing_never_shows_a_longer_term_of_one_issuer_as_safer(db, client, key):
    from datetime import timedelta

    from django.utils import timezone

    from bonds.figures import bond_returns_recompute
    from bonds.offers import bond_offers_upsert
    from bonds.providers.base import Offer
    from tests.bonds.test_assumptions import listed, snapshot

    snapshot()
    today = timezone.localdate()
    bond_offers_upsert(source="t", offers=[
        Offer(natural_key=f"c{years}", name=f"CDB Banco C {years} anos", bank=9, bank_name="Banco C",
              product="cdb", index="cdi*", rate=1.3, rating="brC", rating_given=True,
              maturity_date=today + timedelta(days=round(years * 365.25)))
        for years in (2, 3, 4, 5)
    ])  # fmt: skip
    bond_returns_recompute()
    rows = sorted(listed(client, key)["bonds"], key=lambda row: row["maturity_date"])
    probabilities = [row["payment_probability"] for row in rows]
    assert len(probabilities) == 4 and probabilities == sorted(probabilities, reverse=True)
