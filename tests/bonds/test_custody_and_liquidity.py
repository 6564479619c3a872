"""Custody by the amount (Tesouro Selic pays on the excess over BRL 10,000 only: what an amount nets
never falls as it grows, through MCP too), and liquidity: Tesouro Direto is a D+1 sale at the market
price, `early_withdrawal` a redemption at the contract rate only."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.utils import timezone

from bonds.models import Bond, Product
from bonds.offers import bond_offers_upsert
from bonds.providers.base import Offer
from tests.bonds.mcp_support import ok_key, structured


@pytest.mark.django_db(transaction=True)
def test_project_bond_nets_more_for_10010_than_for_10000_in_tesouro_selic(mcp_url, bonds, make_key, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 0
    key, selic = ok_key(make_key), bonds["F"]  # Tesouro Selic, four years
    nets = {}
    for amount in (9_990, 10_000, 10_010, 10_500, 50_000):
        result = structured(mcp_url, "project_bond", {"bond_id": selic.pk, "amount": amount}, key=key)
        nets[amount] = result["net_amount"]
        if amount <= 10_000:
            assert result["custody_fee"] == 0 and result["custody_fee_rate"] == 0
        else:
            assert result["custody_fee_rate"] == pytest.approx(0.002 * (amount - 10_000) / amount)
    assert list(nets.values()) == sorted(nets.values())
    assert nets[10_010] > nets[10_000]
    # The fee on BRL 10,010 is the fee on BRL 10 alone: cents over four years.
    assert nets[10_010] - nets[10_000] > 10 * 0.99


def tesouro(**values) -> Offer:
    defaults = {
        "natural_key": "Tesouro Selic|2029-03-01",
        "name": "Tesouro Selic 2029",
        "bank": 0,
        "bank_name": "Tesouro Nacional",
        "product": Product.TD,
        "index": "selic+",
        "rate": 0.0007,
        "maturity_date": date(2029, 3, 1),
        "early_withdrawal": True,
    }
    return Offer(**{**defaults, **values})


@pytest.mark.django_db
def test_tesouro_direto_is_a_d_plus_1_sale_not_a_redemption_at_the_contract_rate():
    bond_offers_upsert(source="tesouro", offers=[tesouro()])
    bond = Bond.objects.get()
    assert (bond.liquidity_days, bond.liquidity_kind, bond.early_withdrawal) == (1, "sale", False)


@pytest.mark.django_db
def test_a_redeemable_bank_offer_is_a_redemption_and_a_locked_one_has_no_liquidity():
    maturity = timezone.localdate() + timedelta(days=700)
    common = {"bank": 77, "bank_name": "Banco Inter", "product": "cdb", "index": "cdi*", "rate": 1.0}
    bond_offers_upsert(
        source="feed:x",
        offers=[
            Offer(natural_key="d", name="CDB liquidez diária", maturity_date=maturity, early_withdrawal=True,
                  liquidity_days=0, **common),
            Offer(natural_key="l", name="CDB no vencimento", maturity_date=maturity, **common),
            Offer(natural_key="n", name="NTN-B 2035", bank=102, bank_name="XP", product="tpf", index="ipca+",
                  rate=0.07, maturity_date=date(2035, 5, 15), early_withdrawal=True, liquidity_days=1),
        ],
    )  # fmt: skip
    kinds = {bond.natural_key: (bond.liquidity_kind, bond.early_withdrawal) for bond in Bond.objects.all()}
    assert kinds == {"d": ("redemption", True), "l": (None, False), "n": ("sale", False)}
