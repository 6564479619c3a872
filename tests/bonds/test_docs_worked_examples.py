"""docs/bonds.md's "Worked examples (Bonds v4)": each figure printed there is recomputed here from
bonds.finance, and the test fails when the docs and the code disagree (issue 43, item 12)."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from bonds import finance
from bonds.finance import Projection, offer_returns

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "bonds.md").read_text(encoding="utf-8")
SECTION = DOCS[DOCS.index("## Worked examples (Bonds v4)") : DOCS.index("## Sources and the daily refresh")]
CDI = Projection.flat(cdi=0.1415, ipca=0.045)
CDI_1490 = Projection.flat(cdi=0.149, ipca=0.045)
MONDAY = date(2026, 11, 23)


def pct(value: float, digits: int = 2) -> str:
    return f"**{value * 100:.{digits}f}%**"


def shown(*texts: str) -> None:
    for text in texts:
        assert text in SECTION, f"docs/bonds.md's worked examples do not show {text}"


def test_1_settlement_date():
    saturday = date(2026, 11, 28)
    maturity = saturday + timedelta(days=20)
    settles = finance.settlement_date(saturday)
    naive = offer_returns(
        index="cdi*", rate=1.01, start=saturday, maturity=maturity, projection=CDI, tax_free=False
    )
    listed = offer_returns(
        index="cdi*", rate=1.01, start=settles, maturity=maturity, projection=CDI, tax_free=False
    )
    assert (naive.dc, naive.iof_rate, listed.dc, listed.iof_rate) == (20, 0.33, 18, 0.40)
    shown(pct(naive.net_annualized), pct(listed.net_annualized))


def test_2_iof_on_redemptions_only():
    result = offer_returns(index="ipca+", rate=0.07, start=date(2026, 11, 12), maturity=date(2035, 5, 15),
                           projection=CDI_1490, tax_free=False, coupon=finance.NTN_B_COUPON)  # fmt: skip
    first = result.flows[0]
    income = first.gross - first.custody_fee
    wrong = [(flow.du, flow.net) for flow in result.flows]
    wrong[0] = (first.du, first.gross - income * 0.86 - income * 0.14 * 0.225)
    assert first.day == date(2026, 11, 16) and first.iof == 0
    shown(pct(result.net_annualized), pct(finance.internal_rate(wrong)))


def test_3_fgc_on_what_is_owed():
    maturity = date(2031, 11, 24)
    grown = offer_returns(
        index="cdi*", rate=1.36, start=MONDAY, maturity=maturity, projection=CDI, tax_free=False
    )
    years = (maturity - MONDAY).days / 365.25
    issuer = finance.payment_probability("brA", years, national=True)

    def covered(amount: float) -> float:
        return finance.covered_payment_probability(
            issuer, fgc_protection=True, amount=amount, growth=grown.gross_factor, years=years,
            survival=lambda t: finance.payment_probability("brA", t, national=True),
        )  # fmt: skip

    share = finance.fgc_covered_share(amount=200_000, growth=grown.gross_factor, fgc_protection=True)
    shown(f"**BRL {200_000 * grown.gross_factor:,.2f}**", f"**{share:.4f}**", f"**{covered(200_000):.4f}**",
          f"**{issuer:.4f}**", f"**{covered(1000):.6f}**")  # fmt: skip


def test_4_figures_for_the_amount():
    for amount in (150, 300_000):
        fee = finance.custody_fee_rate(product="td", index="selic+", amount=amount)
        result = offer_returns(index="selic+", rate=0.0007, start=MONDAY, maturity=date(2029, 3, 1),
                               projection=CDI, tax_free=False, custody_fee=fee)  # fmt: skip
        shown(pct(result.net_annualized, 4))


def test_5_instalments():
    common = {"index": "ipca+", "rate": 0.07, "start": MONDAY, "maturity": date(2054, 12, 15),
              "projection": CDI_1490, "tax_free": False}  # fmt: skip
    shown(
        pct(offer_returns(**common, coupon=finance.RENDA_PLUS).net_annualized),
        pct(offer_returns(**common).net_annualized),
    )


def test_6_poupanca_with_the_tr():
    selic = Projection.flat(cdi=0.1415)
    with_tr = finance.poupanca_annual_return(selic, MONDAY, 0.001698)
    shown(pct(with_tr), pct(finance.poupanca_annual_return(selic, MONDAY, 0.0)), "(0.1698% a month)")


def test_7_copom_path():
    from tests.bonds.test_path import ONE_YEAR, TODAY, WORKED

    result = offer_returns(
        index="cdi*", rate=1.0, start=TODAY, maturity=ONE_YEAR, projection=WORKED, tax_free=False
    )
    shown(f"**{result.gross_factor:.6f}**", pct(result.gross_annualized, 4), pct(result.net_annualized, 4))


def test_8_credit_curve():
    three, four = (finance.payment_probability("brC", years, national=True) for years in (3, 4))
    assert four <= three
    shown(f"**{three:.4f}** and **{four:.4f}**")


def test_9_tesouro_reserva():
    from bonds.providers.tesouro import RESERVA_TERMS

    assert RESERVA_TERMS["liquidity_kind"] == "redemption"
    shown(
        f"`min_investment` **{RESERVA_TERMS['min_investment']:g}**",
        f"`liquidity_days` **{RESERVA_TERMS['liquidity_days']}**",
    )


def test_10_exit_before_maturity():
    horizon = MONDAY + timedelta(days=200)
    early = offer_returns(
        index="cdi*", rate=1.04, start=MONDAY, maturity=horizon, projection=CDI, tax_free=False
    )
    held = offer_returns(index="cdi*", rate=1.04, start=MONDAY, maturity=date(2030, 11, 25), projection=CDI,
                         tax_free=False)  # fmt: skip
    assert (early.dc, early.tax_rate) == (200, 0.20)
    shown(f"`horizon={horizon.isoformat()}`", pct(early.net_annualized), pct(held.net_annualized))


@pytest.mark.parametrize("rule", range(1, 12))
def test_every_rule_has_its_row(rule):
    assert f"\n| {rule}. " in SECTION
