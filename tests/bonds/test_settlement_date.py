"""Every figure is as of the settlement date of an order placed now: today on an ANBIMA business day,
else the next one (issue 43, item 1)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.utils import timezone

from bonds import finance
from bonds.figures import bond_figures
from bonds.models import Bond
from tests.bonds.test_assumptions import linked_offers, listed, snapshot

SATURDAY, MONDAY = date(2026, 11, 28), date(2026, 11, 30)
FLAT = finance.Projection.flat(cdi=0.1415, ipca=0.045)


def test_an_order_on_a_business_day_settles_that_day():
    assert finance.settlement_date(date(2026, 11, 23)) == date(2026, 11, 23)


def test_an_order_on_a_weekend_or_a_holiday_settles_on_the_next_business_day():
    assert finance.settlement_date(SATURDAY) == MONDAY
    assert finance.settlement_date(date(2026, 11, 29)) == MONDAY
    # Friday 20 November 2026 is Consciência Negra: the order settles on Monday the 23rd.
    assert finance.settlement_date(date(2026, 11, 20)) == date(2026, 11, 23)


def short_cdb(maturity: date) -> Bond:
    return Bond(name="CDB 101% CDI", bank=77, bank_name="Banco Inter", product="cdb", index="cdi*",
                rate=1.01, maturity_date=maturity, min_investment=1000.0, rating="brAA")  # fmt: skip


def test_a_saturday_order_counts_days_and_the_iof_bracket_from_monday():
    # Ordered Saturday, maturing 20 calendar days on (a Friday): held 18 days from Monday, so IOF takes
    # 40% of the income, not the 33% of day 20.
    maturity = SATURDAY + timedelta(days=20)
    net = bond_figures(bond=short_cdb(maturity), today=SATURDAY, projection=FLAT)[0]
    from_monday = finance.offer_returns(
        index="cdi*", rate=1.01, start=MONDAY, maturity=maturity, projection=FLAT, tax_free=False
    )
    from_saturday = finance.offer_returns(
        index="cdi*", rate=1.01, start=SATURDAY, maturity=maturity, projection=FLAT, tax_free=False
    )
    assert (from_monday.dc, from_monday.iof_rate) == (18, 0.40)
    assert from_saturday.iof_rate == pytest.approx(0.33)
    assert net == pytest.approx(round(from_monday.net_annualized, 6))
    assert net < from_saturday.net_annualized - 0.005  # the weekend had overstated it


@pytest.mark.django_db
def test_the_listing_says_its_settlement_date_and_its_figures_count_from_it(client, key):
    from bonds.figures import bond_returns_recompute
    from bonds.offers import bond_offers_upsert
    from bonds.projections import projection_of

    shot = snapshot()
    bond_offers_upsert(source="t", offers=linked_offers())
    bond_returns_recompute()
    body = listed(client, key)
    settles = finance.settlement_date(timezone.localdate())
    assert body["assumptions"]["settlement_date"] == settles.isoformat()
    cdb = next(row for row in body["bonds"] if row["name"] == "CDB 104% CDI")
    expected = finance.offer_returns(
        index="cdi*", rate=1.04, start=settles, maturity=date.fromisoformat(cdb["maturity_date"]),
        projection=projection_of(shot), tax_free=False,
    )  # fmt: skip
    assert cdb["net_annualized_return"] == pytest.approx(expected.net_annualized, abs=1e-6)
