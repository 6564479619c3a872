"""IOF (Decreto 6.306/2007), the tax-equivalent share of the CDI, and sovereign federal bonds."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from bonds import finance
from bonds.figures import bond_returns_recompute
from bonds.finance import Projection, offer_returns
from bonds.models import Bond
from bonds.offers import bond_offers_upsert
from bonds.providers.base import Offer

START = date(2026, 11, 23)
FLAT = Projection.flat(cdi=0.1415, ipca=0.045)
# The regressive table of the decree's annex, in % of the income, for days 1..29.
DECREE_TABLE = [96, 93, 90, 86, 83, 80, 76, 73, 70, 66, 63, 60, 56, 53, 50, 46, 43, 40, 36, 33, 30,
                26, 23, 20, 16, 13, 10, 6, 3]  # fmt: skip


@pytest.mark.parametrize("day", range(1, 30))
def test_iof_takes_the_decree_share_of_the_income_on_each_day(day):
    assert finance.iof_rate(day) == DECREE_TABLE[day - 1] / 100
    maturity = START + timedelta(days=day)
    result = offer_returns(
        index="pre", rate=0.12, start=START, maturity=maturity, projection=None, tax_free=False
    )
    # A weekend or holiday maturity is paid on the next business day: IOF counts the days to then.
    held = (result.payment_date - START).days
    share = DECREE_TABLE[held - 1] / 100 if held < 30 else 0.0
    gain = result.gross_factor - 1
    expected = 1 + gain * (1 - share) * (1 - 0.225)  # IR on the income minus IOF
    assert result.dc == held and result.iof_rate == share
    assert result.net_factor == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("day", [0, 30, 31, 365])
def test_iof_is_zero_from_day_30(day):
    assert finance.iof_rate(day) == 0


def test_a_cdb_maturing_on_a_sunday_20_days_on_is_paid_on_day_21_and_iof_counts_to_then():
    maturity = START + timedelta(days=20)  # Sunday 13 December 2026
    result = offer_returns(
        index="cdi*", rate=1.0, start=START, maturity=maturity, projection=FLAT, tax_free=False
    )
    assert result.payment_date == date(2026, 12, 14)
    assert (result.dc, result.du, result.iof_rate, result.tax_rate) == (21, 15, 0.30, 0.225)
    without_iof = (1 + (result.gross_factor - 1) * 0.775) ** (252 / 15) - 1
    assert without_iof == pytest.approx(0.1081, abs=1e-4)
    assert result.net_annualized == pytest.approx(0.0746, abs=1e-4)


def test_a_cdb_maturing_on_christmas_is_paid_on_the_28th_after_30_days_so_without_iof():
    result = offer_returns(
        index="cdi*",
        rate=1.0,
        start=date(2026, 11, 25),
        maturity=date(2026, 12, 25),
        projection=FLAT,
        tax_free=False,
    )
    assert result.payment_date == date(2026, 12, 28)
    assert (result.dc, result.iof_rate) == (33, 0.0)
    assert result.du == finance.business_days(date(2026, 11, 25), date(2026, 12, 28))


def test_iof_applies_to_tax_free_offers_too():
    result = offer_returns(
        index="cdi*",
        rate=0.95,
        start=START,
        maturity=START + timedelta(days=10),
        projection=FLAT,
        tax_free=True,
    )
    assert result.tax_rate == 0 and result.iof_rate == 0.66
    assert result.net_factor == pytest.approx(1 + (result.gross_factor - 1) * 0.34)


def test_project_amount_shows_iof_before_income_tax():
    result = finance.project_amount(
        amount=10_000,
        index="pre",
        rate=0.12,
        start=START,
        maturity=START + timedelta(days=17),  # a Thursday: 17 days held
        projection=None,
        tax_free=False,
    )
    gain = result.gross_amount - 10_000
    assert result.iof == pytest.approx(gain * 0.43, abs=0.01)
    assert result.income_tax == pytest.approx((gain - result.iof) * 0.225, abs=0.01)
    assert result.net_amount == pytest.approx(10_000 + gain - result.iof - result.income_tax, abs=0.02)


def returns(index: str, rate: float, *, tax_free: bool = False, maturity=date(2028, 11, 23), **kw):
    return offer_returns(
        index=index, rate=rate, start=START, maturity=maturity, projection=FLAT, tax_free=tax_free, **kw
    )


def test_a_taxed_cdb_is_its_own_tax_equivalent_rate():
    assert returns("cdi*", 1.10).cdi_equivalent == pytest.approx(1.10, abs=1e-9)
    short = returns("cdi*", 1.02, maturity=START + timedelta(days=20))  # IOF on both sides
    assert short.cdi_equivalent == pytest.approx(1.02, abs=1e-9)


def test_a_tax_free_lca_compares_as_a_taxed_cdb_would_have_to_pay():
    worked = Projection.flat(cdi=0.149)  # the worked check's flat CDI
    lca = offer_returns(
        index="cdi*", rate=0.95, start=START, maturity=date(2028, 11, 23), projection=worked, tax_free=True
    )
    # The worked example of docs/bonds.md: 95% of CDI tax-free over two years (IR 15%) nets what a
    # taxed CDB at 109.46% of CDI nets; the x / (1 - t) shortcut says 111.76%, an overstatement.
    assert lca.cdi_equivalent == pytest.approx(1.094581, abs=1e-6)
    cdb = offer_returns(
        index="cdi*",
        rate=lca.cdi_equivalent,
        start=START,
        maturity=date(2028, 11, 23),
        projection=worked,
        tax_free=False,
    )
    assert cdb.net_annualized == pytest.approx(lca.net_annualized, abs=1e-12)
    assert lca.cdi_equivalent < 0.95 / 0.85


def test_fixed_rate_and_inflation_offers_get_a_tax_equivalent_rate_too():
    fixed = returns("pre", 0.1415)
    assert fixed.cdi_equivalent == pytest.approx(1.0, abs=1e-9)  # the flat CDI itself
    # IPCA + 7% (11.8% gross with IPCA at 4.5%) nets what a taxed CDB at 84.38% of a 14.15% CDI nets.
    assert returns("ipca+", 0.07).cdi_equivalent == pytest.approx(0.8438, abs=1e-4)
    assert returns("pre", 0.13, maturity=START).cdi_equivalent is None
    nothing = offer_returns(
        index="pre", rate=0.13, start=START, maturity=date(2028, 1, 1), projection=None, tax_free=False
    )
    assert nothing.net_annualized is not None and nothing.cdi_equivalent is None  # no CDI projection


@pytest.mark.django_db
@pytest.mark.parametrize("product", ["tpf", "td"])
def test_federal_bonds_have_the_sovereigns_payment_probability_whoever_sells_them(product):
    offer = Offer(
        natural_key="ntnb",
        name="NTN-B 2035 (secundário)",
        bank=102,
        bank_name="XP Investimentos",
        product=product,
        index="ipca+",
        rate=0.075,
        maturity_date=date(2035, 5, 15),
        rating="brBBB",  # the broker's rating, which must not apply
        rating_given=True,
    )
    bond_offers_upsert(source="feed:xp", offers=[offer])
    bond_returns_recompute(today=START)
    assert Bond.objects.get().payment_probability == 1.0
