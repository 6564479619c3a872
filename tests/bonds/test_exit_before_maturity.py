"""`horizon=YYYY-MM-DD` on the listing and on the projection: offers redeemable at the contract rate show
their net and real returns if redeemed that day (income tax and IOF by the days held); the others their
figures at maturity and `horizon_reachable: false` (issue 43, item 10)."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta

import pytest
from django.utils import timezone

from bonds import finance
from bonds.finance import Projection, offer_returns
from bonds.projections import projection_of
from tests.bonds.test_assumptions import snapshot
from tests.bonds.test_list_api import URL, bearer

FLAT = Projection.flat(cdi=0.149, ipca=0.045)
START = date(2026, 11, 23)


def test_a_redemption_pays_income_tax_and_iof_by_the_days_held():
    held_21 = offer_returns(index="cdi*", rate=1.05, start=START, maturity=date(2026, 12, 14),
                            projection=FLAT, tax_free=False)  # fmt: skip
    held_400 = offer_returns(index="cdi*", rate=1.05, start=START, maturity=date(2027, 12, 28),
                             projection=FLAT, tax_free=False)  # fmt: skip
    to_maturity = offer_returns(index="cdi*", rate=1.05, start=START, maturity=date(2029, 11, 23),
                                projection=FLAT, tax_free=False)  # fmt: skip
    assert (held_21.dc, held_21.iof_rate, held_21.tax_rate) == (21, pytest.approx(0.30), 0.225)
    assert (held_400.iof_rate, held_400.tax_rate) == (0.0, 0.175)
    assert held_21.net_annualized < held_400.net_annualized < to_maturity.net_annualized


@pytest.fixture
def offers(db):
    from bonds.figures import bond_returns_recompute
    from bonds.offers import bond_offers_upsert
    from bonds.providers.base import Offer

    shot = snapshot()
    later = timezone.localdate() + timedelta(days=4 * 365)
    bank = {"bank": 77, "bank_name": "Banco Inter", "rating": "brAA", "rating_given": True,
            "fgc_protection": True, "min_investment": 1000.0}  # fmt: skip
    bond_offers_upsert(source="t", offers=[
        Offer(natural_key="daily", name="CDB liquidez diária 104% CDI", product="cdb", index="cdi*",
              rate=1.04, maturity_date=later, early_withdrawal=True, liquidity_days=0, **bank),
        Offer(natural_key="lci", name="LCI 94% CDI carência 365", product="lci", index="cdi*", rate=0.94,
              tax_free=True, maturity_date=later, early_withdrawal=True, grace_period_days=365, **bank),
        Offer(natural_key="locked", name="CDB 120% CDI no vencimento", product="cdb", index="cdi*", rate=1.2,
              maturity_date=later, **bank),
        Offer(natural_key="short", name="CDB 100% CDI 90 dias", product="cdb", index="cdi*", rate=1.0,
              maturity_date=timezone.localdate() + timedelta(days=90), **bank),
        Offer(natural_key="lft", name="Tesouro Selic 2029", product="td", index="selic+", rate=0.0007,
              maturity_date=date(2029, 3, 1), bank=0, bank_name="Tesouro Nacional", min_investment=150.0),
    ])  # fmt: skip
    bond_returns_recompute()
    return shot


def rows(client, key, **query) -> dict[str, dict]:
    return {row["name"]: row for row in client.get(URL, query, **bearer(key)).json()["bonds"]}


def test_the_listing_with_a_horizon_shows_the_exit_returns_of_what_can_be_redeemed(client, key, offers):
    settles = finance.settlement_date(timezone.localdate())
    horizon = settles + timedelta(days=200)
    plain = rows(client, key)
    exited = rows(client, key, horizon=horizon.isoformat())
    daily = exited["CDB liquidez diária 104% CDI"]
    expected = offer_returns(index="cdi*", rate=1.04, start=settles, maturity=horizon,
                             projection=projection_of(offers), tax_free=False)  # fmt: skip
    assert daily["horizon_reachable"] is True and expected.tax_rate == 0.20
    assert daily["net_annualized_return"] == pytest.approx(expected.net_annualized, abs=1e-6)
    assert daily["real_annualized_return"] == pytest.approx(expected.real_annualized, abs=1e-6)
    assert daily["net_annualized_return"] != plain["CDB liquidez diária 104% CDI"]["net_annualized_return"]
    # Within its grace period, locked to maturity, or sold at the market price: figures at maturity.
    for name in ("LCI 94% CDI carência 365", "CDB 120% CDI no vencimento", "Tesouro Selic 2029"):
        assert exited[name]["horizon_reachable"] is False
        assert exited[name]["net_annualized_return"] == plain[name]["net_annualized_return"], name
    # Maturing before the horizon: the money is back by then, figures at maturity.
    assert exited["CDB 100% CDI 90 dias"]["horizon_reachable"] is True
    assert (
        exited["CDB 100% CDI 90 dias"]["net_annualized_return"]
        == plain["CDB 100% CDI 90 dias"]["net_annualized_return"]
    )
    assert {row["horizon_reachable"] for row in plain.values()} == {None}
    nets = [row["net_annualized_return"] for row in exited.values()]
    assert nets == sorted(nets, reverse=True)  # ordered by the exit figures


def test_after_its_grace_period_the_lci_can_be_redeemed_and_the_csv_says_so(client, key, offers):
    horizon = (finance.settlement_date(timezone.localdate()) + timedelta(days=400)).isoformat()
    assert rows(client, key, horizon=horizon)["LCI 94% CDI carência 365"]["horizon_reachable"] is True
    for locale, separator, true, false in (
        (None, ",", "TRUE", "FALSE"),
        ("pt-BR", ";", "VERDADEIRO", "FALSO"),
    ):
        query = {"format": "csv", "horizon": horizon, **({"locale": locale} if locale else {})}
        text = client.get(URL, query, **bearer(key)).content.decode("utf-8-sig")
        table = {line["name"]: line for line in csv.DictReader(io.StringIO(text), delimiter=separator)}
        assert table["LCI 94% CDI carência 365"]["horizon_reachable"] == true
        assert table["Tesouro Selic 2029"]["horizon_reachable"] == false


def test_the_projection_with_a_horizon_runs_its_amounts_to_that_day(client, key, offers):
    from bonds.models import Bond

    settles = finance.settlement_date(timezone.localdate())
    horizon = settles + timedelta(days=20)
    daily = Bond.objects.get(natural_key="daily")
    query = {"amount": "10000", "horizon": horizon.isoformat()}
    body = client.get(f"/bonds/api/{daily.pk}/projection", query, **bearer(key)).json()
    paid = finance.next_business_day(horizon)
    assert body["horizon_reachable"] is True and body["calendar_days"] == (paid - settles).days
    assert body["iof_rate"] == pytest.approx(finance.iof_rate((paid - settles).days)) and body["iof"] > 0
    assert any("Redeemed on" in note for note in body["notes"])
    assert body["bond"]["net_annualized_return"] == body["net_annualized_return"]
    locked = Bond.objects.get(natural_key="locked")
    body = client.get(f"/bonds/api/{locked.pk}/projection", query, **bearer(key)).json()
    assert body["horizon_reachable"] is False and body["calendar_days"] > 1000
    assert any("cannot be back" in note for note in body["notes"])


def test_an_odd_horizon_is_no_horizon_on_the_list_and_a_bad_request_on_the_projection(client, key, offers):
    from bonds.models import Bond

    assert {row["horizon_reachable"] for row in rows(client, key, horizon="2029-02-30").values()} == {None}
    daily = Bond.objects.get(natural_key="daily")
    body = client.get(f"/bonds/api/{daily.pk}/projection", {"amount": "1000", "horizon": "next year"}).json()
    assert body["response"]["status"] == "bad_request" and "horizon" in body["response"]["description"]
