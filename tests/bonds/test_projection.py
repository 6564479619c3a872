"""Projecting an amount at maturity from a stored bond and the latest snapshot (used by the MCP tools)."""

from __future__ import annotations

from datetime import date

import pytest

from bonds.figures import bond_returns_recompute
from bonds.models import Bond, ProjectionSnapshot
from bonds.offers import bond_offers_upsert
from bonds.projections import bond_net_amount_at_maturity, custody_fee_for, projection_of
from bonds.providers.base import Offer

pytestmark = pytest.mark.django_db
START = date(2026, 11, 23)


def make_bond(**overrides) -> Bond:
    values = {
        "natural_key": "b",
        "name": "CDB 110% CDI",
        "bank": 77,
        "bank_name": "Banco Inter",
        "product": "cdb",
        "index": "cdi*",
        "rate": 1.10,
        "maturity_date": date(2028, 11, 23),
    }
    offer = Offer(**{**values, **overrides})
    bond_offers_upsert(source=f"t-{offer.natural_key}", offers=[offer])  # one source each: no deactivation
    return Bond.objects.get(natural_key=overrides.get("natural_key", "b"))


def flat_snapshot() -> ProjectionSnapshot:
    # Selic target 15.00% -> CDI 14.90%, IPCA 4.5%: the worked check of reference/bonds.md.
    return ProjectionSnapshot.objects.create(date=START, selic_current=15.0, ipca_12m=4.5)


def test_net_amount_at_maturity_of_the_worked_check():
    bond, snapshot = make_bond(), flat_snapshot()
    result = bond_net_amount_at_maturity(bond=bond, amount=10_000, start=START, snapshot=snapshot)
    assert result.gross_amount == pytest.approx(13549.10, abs=0.01)
    assert result.net_amount == pytest.approx(10_000 + 3549.10 * 0.85, abs=0.02)
    assert result.returns.net_annualized == pytest.approx(0.141810, abs=1e-4)


def test_without_any_snapshot_the_projection_is_null():
    result = bond_net_amount_at_maturity(bond=make_bond(), amount=1000, start=START)
    assert (result.net_amount, result.gross_amount) == (None, None)


def test_snapshot_figures_are_percent_and_become_decimals():
    projection = projection_of(
        ProjectionSnapshot(
            date=START, selic_by_year={"2027": 12.25}, ipca_by_year={"2027": 4.0}, ipca_12m=4.68
        )
    )
    assert projection.cdi_on(date(2027, 12, 31)) == pytest.approx(0.1215)
    assert projection.ipca(2027) == pytest.approx(0.04) and projection.ipca(2026) == pytest.approx(0.0468)
    only_cdi = projection_of(ProjectionSnapshot(date=START, cdi_current=14.15))
    assert only_cdi.cdi_on(date(2027, 6, 1)) == pytest.approx(0.1415)


def test_tesouro_pays_custody_and_tesouro_selic_only_on_the_excess_over_ten_thousand():
    assert custody_fee_for(product="td", index="selic+", amount=10_000) == 0
    assert custody_fee_for(product="td", index="selic+", amount=20_000) == pytest.approx(0.001)  # half
    assert custody_fee_for(product="td", index="selic+", amount=10_010) == pytest.approx(0.002 * 10 / 10_010)
    assert custody_fee_for(product="td", index="ipca+", amount=100) == 0.002
    assert custody_fee_for(product="cdb", index="cdi*", amount=1e6) == 0


def test_renda_plus_and_educa_plus_held_to_maturity_pay_no_custody_fee():
    for name in ("Tesouro Renda+ Aposentadoria Extra 2035", "Tesouro Educa+ 2027"):
        assert custody_fee_for(product="td", index="ipca+", amount=50_000, name=name) == 0


def test_tesouro_selic_nets_more_for_more_money_around_the_exemption():
    bond = make_bond(natural_key="lft", name="Tesouro Selic 2029", product="td", index="selic+", rate=0.0007)
    snapshot = flat_snapshot()
    nets = [
        bond_net_amount_at_maturity(bond=bond, amount=amount, start=START, snapshot=snapshot).net_amount
        for amount in (9_990, 10_000, 10_001, 10_010, 10_100, 11_000)
    ]
    assert nets == sorted(nets) and len(set(nets)) == len(nets)


def test_recompute_writes_returns_and_is_a_no_op_the_second_time():
    make_bond()
    make_bond(natural_key="old", maturity_date=date(2020, 1, 1), name="Matured")
    flat_snapshot()
    assert bond_returns_recompute(today=START) == 1  # the matured one stays null
    assert bond_returns_recompute(today=START) == 0
    bond = Bond.objects.get(natural_key="b")
    assert bond.net_annualized_return == pytest.approx(0.141810, abs=1e-4)
    assert Bond.objects.get(natural_key="old").net_annualized_return is None
