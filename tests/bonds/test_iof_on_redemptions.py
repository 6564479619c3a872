"""IOF falls on redemptions and sales within 30 days of settlement only; coupons pay income tax alone
(Decreto 6.306/2007, art. 32; issue 43, item 2)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.utils import timezone

from bonds import finance
from bonds.finance import Projection, offer_returns
from bonds.projections import projection_of
from tests.bonds.test_assumptions import listed, snapshot

FLAT = Projection.flat(cdi=0.149, ipca=0.045)
NTN_B_2035 = finance.coupon_terms(name="Tesouro IPCA+ com Juros Semestrais 2035", index="ipca+")


def test_a_coupon_two_days_after_purchase_pays_income_tax_but_no_iof():
    # Bought Thursday 12 November 2026; the 15 November coupon (a Sunday and a holiday) is paid Monday 16th.
    start = date(2026, 11, 12)
    result = offer_returns(
        index="ipca+", rate=0.07, start=start, maturity=date(2035, 5, 15), projection=FLAT,
        tax_free=False, coupon=NTN_B_2035,
    )  # fmt: skip
    first = result.flows[0]
    assert (first.day, first.dc) == (date(2026, 11, 16), 4)
    assert first.iof == 0.0
    assert first.income_tax == pytest.approx((first.gross - first.custody_fee) * 0.225)
    # Had IOF (86% on day 4) been taken from that coupon, the bond would net about 0.3 pp a year less.
    taxed_wrongly = [(flow.du, flow.net) for flow in result.flows]
    income = first.gross - first.custody_fee
    taxed_wrongly[0] = (first.du, first.gross - income * 0.86 - income * 0.14 * 0.225)
    wrong = finance.internal_rate(taxed_wrongly)
    assert result.net_annualized - wrong > 0.003


def test_a_redemption_at_maturity_within_thirty_days_still_pays_iof():
    start = date(2026, 11, 23)
    result = offer_returns(
        index="cdi*", rate=1.0, start=start, maturity=date(2026, 12, 14), projection=FLAT, tax_free=False
    )
    assert result.iof_rate == pytest.approx(0.30)


def test_interest_paid_monthly_pays_no_iof_on_its_first_payment_but_the_last_within_30_days_does():
    start = date(2026, 11, 23)
    monthly = finance.CouponTerms(None, 1)
    long = offer_returns(index="pre", rate=0.14, start=start, maturity=date(2028, 11, 23), projection=FLAT,
                         tax_free=False, coupon=monthly)  # fmt: skip
    assert long.flows[0].dc <= 30 and long.flows[0].iof == 0.0 and long.flows[0].income_tax > 0
    short = offer_returns(index="pre", rate=0.14, start=start, maturity=date(2026, 12, 14), projection=FLAT,
                          tax_free=False, coupon=monthly)  # fmt: skip
    assert short.flows[-1].iof > 0


@pytest.mark.django_db
def test_the_listing_nets_a_monthly_coupon_without_iof(client, key):
    from bonds.figures import bond_returns_recompute
    from bonds.offers import bond_offers_upsert
    from bonds.providers.base import Offer

    shot = snapshot()
    maturity = timezone.localdate() + timedelta(days=730)
    offer = Offer(natural_key="deb", name="Debênture Rumo 14% mensal", bank=3, bank_name="Rumo",
                  product="deb", index="pre", rate=0.14, maturity_date=maturity, coupon_months=1,
                  rating="brAA", rating_given=True)  # fmt: skip
    bond_offers_upsert(source="t", offers=[offer])
    bond_returns_recompute()
    (row,) = listed(client, key)["bonds"]
    expected = offer_returns(
        index="pre", rate=0.14, start=finance.settlement_date(timezone.localdate()), maturity=maturity,
        projection=projection_of(shot), tax_free=False, coupon=finance.CouponTerms(None, 1),
    )  # fmt: skip
    assert expected.flows[0].iof == 0.0 and expected.flows[0].dc <= 31
    assert row["net_annualized_return"] == pytest.approx(expected.net_annualized, abs=1e-6)
