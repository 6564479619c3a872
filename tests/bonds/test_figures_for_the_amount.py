"""With `amount=X` every figure of every row is computed for X and equals what project_bond says for X;
without it, for the offer's minimum investment; the reply cache keys on it (issue 43, item 4)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.utils import timezone

from bonds import finance, statuses
from bonds.figures import bond_returns_recompute
from bonds.for_amount import ordered
from bonds.mcp.project import bond_projection
from bonds.models import Bond
from bonds.offers import bond_offers_upsert
from bonds.providers.base import Offer
from tests.bonds.test_assumptions import snapshot
from tests.bonds.test_list_api import URL, bearer


def test_tesouro_selic_nets_less_above_the_custody_exemption():
    start = date(2026, 11, 23)
    common = {"index": "selic+", "rate": 0.0007, "start": start, "maturity": date(2029, 3, 1),
              "projection": finance.Projection.flat(cdi=0.149, ipca=0.045), "tax_free": False}  # fmt: skip
    fee = finance.custody_fee_rate(product="td", index="selic+", amount=300_000)
    small = finance.offer_returns(**common)
    large = finance.offer_returns(**common, custody_fee=fee)
    assert fee == pytest.approx(0.002 * 290_000 / 300_000)
    assert large.net_annualized < small.net_annualized - 0.001


def test_the_order_in_python_is_the_databases_best_net_first_nulls_last_ties_kept():
    bonds = [Bond(name=n, net_annualized_return=v, rate=r) for n, v, r in
             (("a", 0.10, 1.0), ("b", None, 2.0), ("c", 0.12, 1.0), ("d", 0.10, None))]  # fmt: skip
    assert [b.name for b in ordered(list(bonds), None)] == ["c", "a", "d", "b"]
    assert [b.name for b in ordered(list(bonds), "-rate")] == ["b", "c", "a", "d"]
    assert [b.name for b in ordered(list(bonds), "rate")] == ["c", "a", "b", "d"]


def offers() -> list[Offer]:
    later = timezone.localdate() + timedelta(days=5 * 365)
    inter = {"bank": 77, "bank_name": "Banco Inter", "rating": "brA", "rating_given": True,
             "fgc_protection": True, "min_investment": 1000.0, "maturity_date": later}  # fmt: skip
    return [
        Offer(natural_key="cdb", name="CDB 136% CDI", product="cdb", index="cdi*", rate=1.36, **inter),
        Offer(natural_key="lci", name="LCI 95% CDI", product="lci", index="cdi*", rate=0.95, tax_free=True,
              **inter),
        Offer(natural_key="lft", name="Tesouro Selic 2029", product="td", index="selic+", rate=0.0007,
              maturity_date=date(2029, 3, 1), bank=0, bank_name="Tesouro Nacional", min_investment=150.0),
        Offer(natural_key="deb", name="Debênture Rumo CDI + 1.2%", product="deb", index="cdi+", rate=0.012,
              maturity_date=later, bank=3, bank_name="XP", rating="brAA", rating_given=True,
              min_investment=1000.0),
    ]  # fmt: skip


@pytest.mark.django_db
def test_every_row_with_an_amount_equals_project_bond_for_that_amount(client, key):
    snapshot()
    bond_offers_upsert(source="t", offers=offers())
    bond_returns_recompute()
    at_minimum = {row["name"]: row for row in client.get(URL, **bearer(key)).json()["bonds"]}
    reply = client.get(URL, {"amount": "300000"}, **bearer(key)).json()
    rows = {row["name"]: row for row in reply["bonds"]}
    assert set(rows) == set(at_minimum)
    fields = ("net_annualized_return", "real_annualized_return", "payment_probability",
              "covered_payment_probability", "fgc_covered_share", "net_return_cdi_percent")  # fmt: skip
    for name, row in rows.items():
        projected = bond_projection(status=statuses.OK, bond=Bond.objects.get(name=name), amount=300_000)
        for field in fields:
            assert row[field] == getattr(projected.bond, field), (name, field)
        assert row["net_annualized_return"] == pytest.approx(projected.net_annualized_return, abs=1e-6)
    # What changes with the amount: the custody fee above BRL 10,000, the FGC on what 300,000 grows to.
    selic, cdb = rows["Tesouro Selic 2029"], rows["CDB 136% CDI"]
    assert selic["net_annualized_return"] < at_minimum["Tesouro Selic 2029"]["net_annualized_return"]
    assert cdb["fgc_covered_share"] < 0.5 and at_minimum["CDB 136% CDI"]["fgc_covered_share"] == 1.0
    assert (
        cdb["covered_payment_probability"] < 0.99 <= at_minimum["CDB 136% CDI"]["covered_payment_probability"]
    )
    assert rows["Debênture Rumo CDI + 1.2%"] == at_minimum["Debênture Rumo CDI + 1.2%"]
    nets = [row["net_annualized_return"] for row in reply["bonds"]]
    assert nets == sorted(nets, reverse=True)


@pytest.mark.django_db
def test_the_reply_cache_keys_on_the_amount_and_the_preview_takes_the_first_of_the_amounts_order(client, key):
    snapshot()
    bond_offers_upsert(source="t", offers=offers())
    bond_returns_recompute()

    def covered(query: dict, **headers) -> float:
        rows = client.get(URL, query, **headers).json()["bonds"]
        return next(row for row in rows if row["name"] == "CDB 136% CDI")["covered_payment_probability"]

    small = covered({"amount": "1000"}, **bearer(key))
    large = covered({"amount": "300000"}, **bearer(key))
    assert small >= 0.999 > large
    assert covered({"amount": "300000.00"}, **bearer(key)) == large
    assert covered({"amount": "1000"}) == small  # the preview (no key) too
    by_real = client.get(URL, {"amount": "300000", "sort": "-real_annualized_return"}, **bearer(key)).json()
    reals = [row["real_annualized_return"] for row in by_real["bonds"]]
    assert reals == sorted(reals, reverse=True)
