"""Coupon bonds as dated cash flows: NTN-F and NTN-B schedules, each coupon taxed at the bracket of its
own holding period, and the net return as the after-tax IRR (recomputed here by hand)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from bonds import finance
from bonds.figures import bond_returns_recompute
from bonds.finance import Projection, offer_returns
from bonds.models import Bond
from bonds.offers import bond_offers_upsert
from bonds.providers.base import Offer

START = date(2026, 11, 23)
FLAT = Projection.flat(cdi=0.149, ipca=0.045)


def test_coupon_bonds_are_recognised_by_name():
    assert finance.coupon_terms(name="Tesouro IPCA+ com Juros Semestrais 2050", index="ipca+") == (
        finance.NTN_B_COUPON
    )
    assert finance.coupon_terms(name="Tesouro Prefixado com Juros Semestrais 2037", index="pre") == (
        finance.NTN_F_COUPON
    )
    assert finance.coupon_terms(name="NTN-B 2035 (secundário)", index="ipca+") == finance.NTN_B_COUPON
    assert finance.coupon_terms(name="NTN-F 2031", index="pre") == finance.NTN_F_COUPON
    bullets = (
        ("NTN-B Principal 2035", "ipca+"),
        ("Tesouro IPCA+ 2032", "ipca+"),
        ("LTN 2029", "pre"),
    )
    for name, index in bullets:
        assert finance.coupon_terms(name=name, index=index) is None
    assert finance.NTN_F_COUPON.per_period == pytest.approx(0.04880885, abs=1e-8)
    assert finance.NTN_B_COUPON.per_period == pytest.approx(0.02956301, abs=1e-8)


def test_coupons_fall_six_months_apart_back_from_maturity_on_business_days():
    ntnf = finance.payment_days(finance.NTN_F_COUPON, START, date(2029, 1, 1))
    # 1 January is a holiday: paid on the next business day.
    assert ntnf == [date(2027, 1, 4), date(2027, 7, 1), date(2028, 1, 3), date(2028, 7, 3), date(2029, 1, 2)]
    odd = finance.payment_days(finance.NTN_B_COUPON, START, date(2035, 5, 15))
    assert (odd[0], odd[1]) == (date(2027, 5, 17), date(2027, 11, 16))  # 15 May 2027 a Saturday; 15 Nov
    even = finance.payment_days(finance.NTN_B_COUPON, START, date(2030, 8, 15))
    assert (even[0], even[-1]) == (date(2027, 2, 15), date(2030, 8, 15))


def by_hand_net(rate: float, maturity: date) -> float:
    """An NTN-F bought today at `rate`: its flows per BRL 1, each coupon taxed at its own bracket, the
    last also on the principal's gain over the price; the after-tax IRR by bisection."""
    days = finance.payment_days(finance.NTN_F_COUPON, START, maturity)
    coupon = 1.10**0.5 - 1
    du = [finance.business_days(START, day) for day in days]
    gross = [coupon] * (len(days) - 1) + [1 + coupon]
    price = sum(amount / (1 + rate) ** (d / 252) for amount, d in zip(gross, du, strict=True))
    net = []
    for k, (day, amount) in enumerate(zip(days, gross, strict=True)):
        paid = amount / price
        income = paid - (1 if k == len(days) - 1 else 0)
        net.append(paid - income * finance.income_tax_rate((day - START).days))
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        value = sum(amount / (1 + middle) ** (d / 252) for amount, d in zip(net, du, strict=True))
        low, high = (middle, high) if value > 1 else (low, middle)
    return low


def test_a_fixed_rate_coupon_bond_nets_the_irr_of_its_after_tax_flows():
    maturity = date(2037, 1, 1)
    result = offer_returns(
        index="pre",
        rate=0.1362,
        start=START,
        maturity=maturity,
        projection=FLAT,
        tax_free=False,
        coupon=finance.NTN_F_COUPON,
    )
    assert result.gross_annualized == pytest.approx(0.1362, abs=1e-9)  # bought at its own rate
    assert result.net_annualized == pytest.approx(by_hand_net(0.1362, maturity), abs=1e-9)
    bullet = offer_returns(
        index="pre", rate=0.1362, start=START, maturity=maturity, projection=FLAT, tax_free=False
    )
    assert result.net_annualized < bullet.net_annualized - 0.005  # taxed early, at the short brackets too
    rates = [flow.income_tax / (flow.gross - flow.custody_fee) for flow in result.flows[:3]]
    assert rates == pytest.approx([0.225, 0.20, 0.175])  # 42, 220 and 406 days held


@pytest.mark.django_db
def test_the_listing_nets_tesouro_coupon_bonds_as_cash_flows_below_the_bullet_formula():
    names = ("Tesouro IPCA+ com Juros Semestrais 2050", "Tesouro Prefixado com Juros Semestrais 2037")
    offers = [
        Offer(natural_key="ntnb", name=names[0], bank=0, bank_name="Tesouro Nacional", product="td",
              index="ipca+", rate=0.0731, maturity_date=date(2050, 8, 15), min_investment=43.0),
        Offer(natural_key="ntnf", name=names[1], bank=0, bank_name="Tesouro Nacional", product="td",
              index="pre", rate=0.1362, maturity_date=date(2037, 1, 1), min_investment=35.0),
    ]  # fmt: skip
    bond_offers_upsert(source="tesouro", offers=offers)
    from bonds.models import ProjectionSnapshot

    ProjectionSnapshot.objects.create(date=START, selic_current=15.0, ipca_12m=4.5)
    bond_returns_recompute(today=START)
    for bond in Bond.objects.all():
        bullet = offer_returns(
            index=bond.index,
            rate=bond.rate,
            start=START,
            maturity=bond.maturity_date,
            projection=FLAT,
            tax_free=False,
            custody_fee=finance.TESOURO_CUSTODY_FEE,
        )
        assert bond.net_annualized_return < bullet.net_annualized - 0.004


def test_interest_paid_every_six_months_at_the_offers_own_rate_nets_less_than_at_maturity():
    maturity = date(2031, 11, 17)
    for index, rate in (("cdi+", 0.015), ("ipca+", 0.07), ("pre", 0.13)):
        terms = finance.coupon_terms(name="Debênture X", index=index, coupon_months=6)
        periodic = offer_returns(
            index=index,
            rate=rate,
            start=START,
            maturity=maturity,
            projection=FLAT,
            tax_free=False,
            coupon=terms,
        )
        bullet = offer_returns(
            index=index, rate=rate, start=START, maturity=maturity, projection=FLAT, tax_free=False
        )
        # The same gross (flat rates, bought at par), but each payment taxed at its own, shorter bracket.
        assert periodic.gross_annualized == pytest.approx(bullet.gross_annualized, abs=1e-9)
        assert periodic.net_annualized < bullet.net_annualized - 0.003
        assert len(periodic.flows) == 10 and periodic.flows[0].income_tax / periodic.flows[
            0
        ].gross == pytest.approx(0.225)
        exempt = offer_returns(
            index=index,
            rate=rate,
            start=START,
            maturity=maturity,
            projection=FLAT,
            tax_free=True,
            coupon=terms,
        )
        assert exempt.net_annualized == pytest.approx(bullet.gross_annualized, abs=1e-9)  # no tax: no drag


@pytest.mark.django_db
def test_a_feed_saying_a_debenture_pays_interest_every_six_months_is_computed_as_cash_flows(fake_source):
    from bonds.providers import feeds
    from bonds.providers.base import ProviderError

    row = {"name": "Debênture Rumo CDI + 1,5%", "bank": 102, "bank_name": "XP", "product": "deb",
           "index": "cdi+", "rate": 0.015, "maturity_date": "2031-11-17", "rating": "brAA+",
           "coupon_months": 6}  # fmt: skip
    url = fake_source.route("/feed.json", json.dumps({"bonds": [row]}))
    [offer] = feeds.fetch(url=url, fmt="auto", timeout=5, what="feed")
    assert offer.coupon_months == 6
    bond_offers_upsert(source="feed:xp", offers=[offer, Offer(**{**offer.__dict__, "natural_key": "b",
                                                                  "coupon_months": None})])  # fmt: skip
    from bonds.models import ProjectionSnapshot

    ProjectionSnapshot.objects.create(date=START, selic_current=15.0, ipca_12m=4.5)
    bond_returns_recompute(today=START)
    periodic, bullet = Bond.objects.get(coupon_months=6), Bond.objects.get(natural_key="b")
    assert periodic.net_annualized_return < bullet.net_annualized_return - 0.003
    bad = fake_source.route("/bad.json", json.dumps({"bonds": [{**row, "coupon_months": 5}]}))
    with pytest.raises(ProviderError, match="coupon_months: 5 is not one of 1, 3, 6, 12"):
        feeds.fetch(url=bad, fmt="auto", timeout=5, what="feed")
