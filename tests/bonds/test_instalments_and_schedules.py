"""Tesouro Renda+ and Educa+ as their real monthly instalments, each taxed at its own bracket (the net
return is the after-tax IRR), and every row's `payment_schedule` and `first_payment_date` (issue 43,
item 5)."""

from __future__ import annotations

import csv
import io
from datetime import date

import pytest
from django.utils import timezone

from bonds import finance
from bonds.finance import Projection, offer_returns
from bonds.projections import projection_of
from tests.bonds.test_assumptions import listed, snapshot
from tests.bonds.test_list_api import URL, bearer

START = date(2026, 11, 23)
FLAT = Projection.flat(cdi=0.149, ipca=0.045)
RENDA_2035 = ("Tesouro Renda+ Aposentadoria Extra 2035", date(2054, 12, 15))


def renda(start: date = START, projection: Projection = FLAT, **kw):
    terms = finance.coupon_terms(name=RENDA_2035[0], index="ipca+")
    return offer_returns(index="ipca+", rate=0.07, start=start, maturity=RENDA_2035[1], projection=projection,
                         tax_free=False, coupon=terms, **kw)  # fmt: skip


def test_renda_plus_and_educa_plus_are_recognised_by_name_and_pay_in_monthly_instalments():
    assert finance.coupon_terms(name=RENDA_2035[0], index="ipca+") == finance.Instalments(240)
    assert finance.coupon_terms(name="Tesouro Educa+ 2031", index="ipca+") == finance.Instalments(60)
    assert finance.first_instalment(finance.RENDA_PLUS, date(2054, 12, 15)) == date(2035, 1, 15)
    assert finance.first_instalment(finance.EDUCA_PLUS, date(2035, 12, 15)) == date(2031, 1, 15)


def test_renda_plus_2035_pays_240_instalments_from_january_2035_and_nets_their_after_tax_irr():
    result = renda()
    flows = result.flows
    assert len(flows) == 240 and flows[0].day == date(2035, 1, 15) and flows[-1].day == date(2054, 12, 15)
    assert {round(flow.income_tax / (flow.gross - 1 / 240), 6) for flow in flows} == {0.15}
    assert sum(flow.net / (1 + result.net_annualized) ** (flow.du / 252) for flow in flows) == pytest.approx(
        1
    )
    # Without inflation the gross IRR is the quoted real rate itself.
    no_inflation = renda(projection=Projection.flat(cdi=0.149, ipca=0.0))
    assert no_inflation.gross_annualized == pytest.approx(0.07, abs=1e-9)
    # As one payment at the last instalment (the old model) it listed more.
    bullet = offer_returns(index="ipca+", rate=0.07, start=START, maturity=RENDA_2035[1], projection=FLAT,
                           tax_free=False)  # fmt: skip
    assert bullet.net_annualized - result.net_annualized > 0.001


def test_an_educa_plus_already_paying_taxes_each_instalment_at_its_own_bracket():
    result = offer_returns(index="ipca+", rate=0.07, start=START, maturity=date(2027, 12, 15),
                           projection=FLAT, tax_free=False, coupon=finance.EDUCA_PLUS)  # fmt: skip
    assert len(result.flows) == 13 and result.flows[0].day == date(2026, 12, 15)
    rates = [round(flow.income_tax / (flow.gross - flow.iof - 1 / 13), 4) for flow in result.flows]
    assert rates[0] == 0.225 and rates[-1] == 0.175 and 0.20 in rates


def test_each_offer_says_how_it_pays():
    schedule = finance.payment_schedule
    assert schedule(terms=None, product="cdb") == "bullet"
    assert schedule(terms=None, product="deb") == "unknown"
    assert schedule(terms=finance.NTN_B_COUPON, product="td") == "semiannual"
    assert schedule(terms=finance.CouponTerms(None, 1), product="cri") == "monthly"
    assert schedule(terms=finance.RENDA_PLUS, product="td") == "instalments"


@pytest.mark.django_db
def test_the_listing_shows_the_schedule_the_first_payment_and_the_instalments_irr(client, key):
    from bonds.figures import bond_returns_recompute
    from bonds.offers import bond_offers_upsert
    from bonds.providers.base import Offer

    shot = snapshot()
    bond_offers_upsert(source="t", offers=[
        Offer(natural_key="renda", name=RENDA_2035[0], bank=0, bank_name="Tesouro Nacional", product="td",
              index="ipca+", rate=0.07, maturity_date=RENDA_2035[1], min_investment=35.0),
        Offer(natural_key="deb", name="Debênture Rumo IPCA + 7%", bank=3, bank_name="XP", product="deb",
              index="ipca+", rate=0.07, maturity_date=date(2031, 6, 15), rating="brAA", rating_given=True),
    ])  # fmt: skip
    bond_returns_recompute()
    rows = {row["name"]: row for row in listed(client, key)["bonds"]}
    row = rows[RENDA_2035[0]]
    assert (row["payment_schedule"], row["first_payment_date"], row["maturity_date"]) == (
        "instalments", "2035-01-15", "2054-12-15",
    )  # fmt: skip
    expected = renda(start=finance.settlement_date(timezone.localdate()), projection=projection_of(shot))
    assert row["net_annualized_return"] == pytest.approx(expected.net_annualized, abs=1e-6)
    deb = rows["Debênture Rumo IPCA + 7%"]
    assert (deb["payment_schedule"], deb["first_payment_date"]) == ("unknown", "2031-06-16")  # paid Monday
    text = client.get(URL, {"format": "csv", "locale": "pt-BR"}, **bearer(key)).content.decode("utf-8-sig")
    table = list(csv.DictReader(io.StringIO(text), delimiter=";"))
    renda_row = next(line for line in table if line["name"] == RENDA_2035[0])
    assert (renda_row["payment_schedule"], renda_row["first_payment_date"]) == ("instalments", "2035-01-15")
    # The maturity filters read maturity_date, the last payment: Renda+ 2035 pays until 2054.
    assert RENDA_2035[0] not in {
        r["name"] for r in client.get(URL, {"maturity_to": "2035-12-31"}, **bearer(key)).json()["bonds"]
    }
