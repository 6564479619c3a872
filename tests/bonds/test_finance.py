"""bonds.finance against reference/bonds.md §5.4 (the worked check) and the rules around it."""

from __future__ import annotations

from datetime import date

import pytest

from bonds import finance
from bonds.finance import Projection, offer_returns

START, MATURITY = date(2026, 11, 23), date(2028, 11, 23)
FLAT = Projection.flat(cdi=0.149, ipca=0.045)


def returns(index: str, rate: float, *, tax_free: bool = False, projection=FLAT, maturity=MATURITY, **kw):
    return offer_returns(
        index=index, rate=rate, start=START, maturity=maturity, projection=projection, tax_free=tax_free, **kw
    )


def test_calendar_matches_the_anbima_figures_of_the_reference():
    assert finance.business_days(START, MATURITY) == 501
    assert finance.business_days(date(2025, 1, 2), date(2026, 1, 2)) == 252
    assert finance.business_days(date(2026, 11, 20), date(2026, 11, 24)) == 1
    assert not finance.is_business_day(date(2026, 11, 20))
    assert finance.is_business_day(date(2023, 11, 20))  # a national holiday only from 2024


def test_calendar_has_the_moving_holidays_of_2026():
    # Easter 2026 is 5 April: Carnival 16-17 February, Good Friday 3 April, Corpus Christi 4 June.
    assert finance.easter(2026) == date(2026, 4, 5)
    for day in (date(2026, 2, 16), date(2026, 2, 17), date(2026, 4, 3), date(2026, 6, 4)):
        assert not finance.is_business_day(day), day
    assert finance.next_business_day(date(2026, 11, 20)) == date(2026, 11, 23)


def test_worked_check_cdb_110_percent_of_cdi():
    result = returns("cdi*", 1.10)
    assert (result.du, result.dc, result.tax_rate) == (501, 731, 0.15)
    assert result.gross_factor == pytest.approx(1.354910, abs=1e-6)
    assert result.gross_annualized == pytest.approx(0.165065, abs=1e-4)
    assert result.net_annualized == pytest.approx(0.141810, abs=1e-4)
    assert result.real_annualized == pytest.approx(0.092641, abs=1e-4)


def test_worked_check_cdi_plus_two_percent():
    assert returns("cdi+", 0.02).gross_annualized == pytest.approx(0.171980, abs=1e-4)


def test_worked_check_ipca_plus_seven_percent():
    result = returns("ipca+", 0.07)
    assert result.gross_annualized == pytest.approx(0.118150, abs=1e-4)
    assert result.net_annualized == pytest.approx(0.101227, abs=1e-4)
    assert result.real_annualized == pytest.approx(0.053805, abs=1e-4)


def test_worked_check_tax_free_lca_95_percent_of_cdi():
    result = returns("cdi*", 0.95, tax_free=True)
    assert result.tax_rate == 0
    assert result.net_annualized == pytest.approx(0.141050, abs=1e-4)
    assert result.net_annualized == pytest.approx(result.gross_annualized)


def test_percent_of_cdi_is_not_the_naive_shortcut():
    naive = (1 + 1.10 * 0.149) ** (501 / 252) - 1
    assert returns("cdi*", 1.10).gross_annualized > (1 + naive) ** (252 / 501) - 1 + 0.001


@pytest.mark.parametrize(
    ("index", "rate", "expected_gross"),
    [
        ("pre", 0.13, 0.13),
        ("ipca*", 1.0, 0.045),
        ("selic*", 1.0, 0.149),  # effective Selic = CDI = target - 0.10 pp
        ("selic+", 0.001, 1.149 * 1.001 - 1),
        ("cdi*", 1.0, 0.149),
    ],
)
def test_every_index_kind_has_a_gross_return(index, rate, expected_gross):
    assert returns(index, rate).gross_annualized == pytest.approx(expected_gross, abs=1e-9)


def test_an_unknown_index_kind_is_refused():
    with pytest.raises(ValueError, match="unknown index kind"):
        returns("igpm+", 0.05)


@pytest.mark.parametrize(
    ("days", "rate"),
    [
        (1, 0.225),
        (180, 0.225),
        (181, 0.20),
        (360, 0.20),
        (361, 0.175),
        (720, 0.175),
        (721, 0.15),
        (5000, 0.15),
    ],
)
def test_income_tax_brackets_by_calendar_days(days, rate):
    assert finance.income_tax_rate(days) == rate
    assert finance.income_tax_rate(days, tax_free=True) == 0


def test_tax_bracket_edge_is_applied_to_the_net_return():
    start = date(2026, 11, 25)  # 180 and 181 days on are business days (a Monday and a Tuesday)
    at_180 = offer_returns(
        index="pre", rate=0.12, start=start, maturity=date(2027, 5, 24), projection=None, tax_free=False
    )
    at_181 = offer_returns(
        index="pre", rate=0.12, start=start, maturity=date(2027, 5, 25), projection=None, tax_free=False
    )
    assert (at_180.dc, at_180.tax_rate, at_181.dc, at_181.tax_rate) == (180, 0.225, 181, 0.20)
    assert at_181.net_annualized > at_180.net_annualized


@pytest.mark.parametrize("maturity", [START, date(2026, 1, 1)])
def test_a_maturity_today_or_in_the_past_gives_null_returns(maturity):
    result = returns("cdi*", 1.0, maturity=maturity)
    assert result.du == 0
    assert (result.net_annualized, result.real_annualized, result.gross_factor) == (None, None, None)


def test_missing_projections_give_null_returns_never_a_crash():
    nothing = Projection()
    assert returns("cdi*", 1.0, projection=nothing).net_annualized is None
    assert returns("ipca+", 0.06, projection=None).net_annualized is None
    fixed = returns("pre", 0.13, projection=nothing)
    assert fixed.net_annualized is not None and fixed.real_annualized is None
    only_cdi = returns("cdi*", 1.0, projection=Projection.flat(cdi=0.149))
    assert only_cdi.net_annualized is not None and only_cdi.real_annualized is None


def test_without_meetings_the_path_is_a_line_from_today_to_each_year_end_median():
    path = Projection(
        selic_current=0.15, selic_by_year={2027: 0.13, 2028: 0.105}, cdi_gap=0.001, as_of=date(2026, 12, 31)
    )
    assert path.selic_target_on(date(2026, 12, 31)) == pytest.approx(0.15)
    # Stepped monthly: July 2027 takes the line 15% (31 Dec 2026) -> 13% (31 Dec 2027) on 16 July,
    # 197 days after its start.
    assert path.selic_target_on(date(2027, 7, 2)) == pytest.approx(0.15 - 0.02 * 197 / 365)
    assert path.selic_target_on(date(2027, 7, 31)) == path.selic_target_on(date(2027, 7, 1))
    assert path.cdi_on(date(2035, 1, 1)) == pytest.approx(0.104)  # after the last median: flat
    per_year = finance.business_days_by_year(START, MATURITY)
    assert sorted(per_year) == [2026, 2027, 2028] and sum(per_year.values()) == 501


def test_custody_fee_lowers_the_net_return():
    plain = returns("pre", 0.13)
    charged = returns("pre", 0.13, custody_fee=finance.TESOURO_CUSTODY_FEE)
    assert charged.net_annualized < plain.net_annualized


def test_project_amount_splits_gross_tax_and_net():
    result = finance.project_amount(
        amount=10_000,
        index="cdi*",
        rate=1.10,
        start=START,
        maturity=MATURITY,
        projection=FLAT,
        tax_free=False,
    )
    assert result.gross_amount == pytest.approx(13549.10, abs=0.01)
    assert result.income_tax == pytest.approx(3549.10 * 0.15, abs=0.01)
    assert result.net_amount == pytest.approx(10_000 + 3549.10 * 0.85, abs=0.02)


@pytest.mark.parametrize(
    ("rating", "bucket"),
    [
        ("brAAA", "BB"),
        ("AA+(bra)", "BB"),
        ("A-.br", "BB"),
        ("brBBB+", "B"),
        ("brCCC", "CCC"),
        ("BBB-", "BBB"),
        ("Ba2", "BB"),
        ("Aaa", "AAA"),
        ("-", None),
        (None, None),
        ("xyz", None),
    ],
)
def test_rating_maps_to_a_global_bucket(rating, bucket):
    assert finance.rating_bucket(rating) == bucket


def test_payment_probability_follows_the_em_table_and_interpolates():
    assert finance.payment_probability("BB", 5) == pytest.approx(1 - 0.0442)
    assert finance.payment_probability("BB", 0.5) == pytest.approx((1 - 0.0054) ** 0.5)
    between = finance.payment_probability("BB", 2.5)
    assert between == pytest.approx((1 - 0.0151) * ((1 - 0.0255) / (1 - 0.0151)) ** 0.5)
    beyond = finance.payment_probability("BB", 12)
    assert beyond < finance.payment_probability("BB", 10)
    assert finance.payment_probability("AAA", 7) == 1.0
    assert finance.payment_probability("brAA", 5) == finance.payment_probability("BB", 5)  # Austin: brAA = BB
    # brAAA is BB+ (a notch above BB): a third of the way from the BB row to the BBB row, geometrically.
    assert finance.payment_probability("brAAA", 5) == pytest.approx(1 - 0.0442 * (0.0155 / 0.0442) ** (1 / 3))
    assert finance.payment_probability("-", 3) is None
    assert finance.payment_probability(None, 3, sovereign=True) == 1.0
    assert finance.payment_probability("brBBB", 3, sovereign=True) == 1.0


def test_a_plain_rating_can_be_read_on_the_national_scale():
    assert finance.rating_bucket("AA") == "AA"
    assert finance.rating_bucket("AA", national=True) == "BB"
    assert finance.payment_probability("A", 3, national=True) == finance.payment_probability("BB-", 3)
