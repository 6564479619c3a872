"""The demo market is priced over its own projected curve (bonds.demo_market), like a real market."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from bonds import demo, finance
from bonds.demo_market import CDI_SHARE, IPCA_SPREAD, TERM_SHARE_PER_YEAR, Market, tesouro_ipca_rate
from bonds.models import Bond
from bonds.projections import projection_latest, projection_of
from bonds.providers import tesouro

pytestmark = pytest.mark.django_db


@pytest.fixture
def market(demo_for_the_module) -> Market:
    return Market(today=timezone.localdate(), projection=projection_of(projection_latest()))


def demo_bonds():
    # The demo's Tesouro titles stand in for the Tesouro provider's, under its source.
    sources = (demo.SOURCE, tesouro.SOURCE)
    return Bond.objects.filter(source__in=sources, is_active=True).select_related("issuer")


def tier(bond: Bond) -> str:
    """AAA, AA, A, BBB or BB from the national-scale rating the bond carries (or its issuer's)."""
    rating = bond.rating if bond.rating not in (None, "-") else bond.issuer.rating
    return re.sub(r"^br|\(bra\)$|\.br$|[+-]", "", rating)


def test_at_least_three_offers_mature_within_30_days_and_their_net_shows_iof(market):
    settles = finance.settlement_date(market.today)
    short = [bond for bond in demo_bonds() if (bond.maturity_date - settles).days < 30]
    assert len(short) >= 3
    for bond in short:
        result = finance.offer_returns(
            index=bond.index,
            rate=bond.rate,
            start=finance.settlement_date(market.today),  # an order placed on a weekend settles on Monday
            maturity=bond.maturity_date,
            projection=market.projection,
            tax_free=bond.tax_free,
        )
        assert result.iof_rate > 0 and bond.net_annualized_return == pytest.approx(
            result.net_annualized, abs=1e-6
        )
        without_iof = 1 + (result.gross_factor - 1) * (1 - result.tax_rate)
        assert bond.net_annualized_return < finance.annualized(without_iof, result.du) - 0.003


def test_tax_free_offers_pay_less_than_a_comparable_taxed_offer(market):
    tax_free = [bond for bond in demo_bonds() if bond.tax_free]
    assert len(tax_free) > 50
    for bond in tax_free:
        years = (bond.maturity_date - market.today).days / 365
        if bond.index == "ipca+":  # the cheapest taxed IPCA+ paper of the same tier and term
            rate = tesouro_ipca_rate(bond.maturity_date) + IPCA_SPREAD[tier(bond)][0]
            comparable = market.net_of("ipca+", rate, bond.maturity_date)
            assert bond.net_annualized_return < comparable, bond.name
        else:  # the cheapest taxed CDB of the same tier and term, as a share of the CDI
            share = CDI_SHARE[tier(bond)] + TERM_SHARE_PER_YEAR * min(years, 5) - 0.01
            assert bond.net_return_cdi_percent < share, bond.name


def test_no_offer_pays_above_tesouro_ipca_for_its_term_without_a_lower_rating(market):
    above = [
        bond
        for bond in demo_bonds().filter(index="ipca+").exclude(product="td")
        if bond.rate > tesouro_ipca_rate(bond.maturity_date)
    ]
    assert above and all(tier(bond) != "AAA" and not bond.tax_free for bond in above)
    tesouro = demo_bonds().get(name="Tesouro IPCA+ 2032")
    assert not demo_bonds().filter(tax_free=True, index="ipca+", rate__gte=tesouro.rate).exists()


def test_fixed_rate_offers_follow_the_falling_curve(market):
    cdi_now = market.projection.cdi_on(market.today)
    for bond in demo_bonds().filter(index="pre", tax_free=True):
        assert bond.rate < cdi_now, bond.name  # the path falls: no tax-free fixed rate above today's CDI
    best_tax_free = demo_bonds().filter(tax_free=True).order_by("-net_annualized_return").first()
    best_taxed = demo_bonds().filter(tax_free=False).order_by("-net_annualized_return").first()
    assert best_taxed.net_annualized_return > best_tax_free.net_annualized_return


def test_debentures_cris_and_cras_are_companies_paper_sold_by_brokers(market):
    bank_names = [name for _, name, _, _ in demo.BANKS]
    papers = demo_bonds().filter(product__in=["deb", "cri", "cra"])
    assert papers.count() > 40
    for bond in papers:
        assert bond.bank in {102, 208} and not any(name in bond.name for name in bank_names), bond.name
        assert bond.rating not in (None, "-") and bond.rating != bond.issuer.rating


def test_lfs_have_the_legal_minimum_and_federal_bonds_the_sovereigns_risk(market):
    assert min(demo_bonds().filter(product="lf").values_list("min_investment", flat=True)) >= 50_000
    assert set(
        demo_bonds().filter(product__in=["tpf", "td"]).values_list("payment_probability", flat=True)
    ) == {1.0}


def test_liquidity_is_set_where_redemption_is_allowed(market):
    redeemable = demo_bonds().filter(early_withdrawal=True).exclude(product="td")
    assert redeemable.exists() and not redeemable.filter(liquidity_days__isnull=True).exists()
    assert set(
        demo_bonds().filter(product="lci", early_withdrawal=True).values_list("grace_period_days", flat=True)
    ) == {365}
