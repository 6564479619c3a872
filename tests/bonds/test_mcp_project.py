"""The MCP tools `project_bond` and `explain_bonds`."""

from __future__ import annotations

import pytest
from django.utils import timezone

from bonds import finance, statuses
from bonds.figures import bond_returns_recompute
from bonds.models import Bond
from bonds.offers import bond_offers_upsert
from bonds.rendering import BOND_FIELDS
from tests.bonds.mcp_support import call, expected_net, offer, ok_key, structured

pytestmark = pytest.mark.django_db(transaction=True)


def test_project_bond_gives_the_net_amount_at_maturity_step_by_step(mcp_url, bonds, make_key):
    bond = bonds["A"]
    result = structured(mcp_url, "project_bond", {"bond_id": bond.pk, "amount": 10_000}, key=ok_key(make_key))
    today = timezone.localdate()
    assert result["status"] == statuses.OK and result["preview"] is False
    assert result["bond"]["id"] == bond.pk and result["bond"]["name"] == bond.name
    paid = finance.next_business_day(bond.maturity_date)  # a weekend maturity is paid on the Monday
    settles = finance.settlement_date(today)  # an order placed on a weekend settles on the Monday
    held = (paid - settles).days
    assert result["business_days"] == finance.business_days(settles, paid)
    assert result["calendar_days"] == held >= 727
    # 730 days from today: past 720 (15%), unless a weekend order settles two days later (17.5%).
    assert result["income_tax_rate"] == finance.income_tax_rate(held)
    expected = expected_net(10_000, 0.13, bond.maturity_date, tax=finance.income_tax_rate(held))
    assert result["net_amount"] == pytest.approx(expected, abs=0.01)
    assert result["net_gain"] == pytest.approx(result["net_amount"] - 10_000, abs=0.001)
    assert result["gross_amount"] == pytest.approx(10_000 * 1.13 ** (result["business_days"] / 252), abs=0.01)
    assert result["custody_fee"] == 0 and result["custody_fee_rate"] == 0
    assert result["gross_annualized_return"] == pytest.approx(0.13, abs=1e-6)
    assert result["net_annualized_return"] == pytest.approx(bond.net_annualized_return, abs=1e-6)
    assert result["real_annualized_return"] == pytest.approx(
        (1 + result["net_annualized_return"]) / (1 + result["projected_inflation"]) - 1, abs=1e-6
    )
    assert result["projected_inflation"] == pytest.approx(0.045, abs=1e-6)
    assert result["meets_min_investment"] is True
    assert result["assumptions"]["cdi_pct"] == 14.9


def test_project_bond_notes_what_the_investor_must_know(mcp_url, bonds, make_key, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 0
    key = ok_key(make_key)
    small = structured(mcp_url, "project_bond", {"bond_id": bonds["B"].pk, "amount": 1000}, key=key)
    assert small["meets_min_investment"] is False
    assert small["income_tax"] == 0 and small["income_tax_rate"] == 0
    assert any("minimum investment" in note for note in small["notes"])
    treasury = structured(mcp_url, "project_bond", {"bond_id": bonds["F"].pk, "amount": 20_000}, key=key)
    # Tesouro Selic: the fee on the excess over BRL 10,000 only, half of BRL 20,000.
    assert treasury["custody_fee_rate"] == pytest.approx(finance.TESOURO_CUSTODY_FEE / 2)
    assert treasury["custody_fee"] > 0
    assert any("custody fee" in note for note in treasury["notes"])


def test_project_bond_uses_the_same_path_iof_and_tax_as_the_listing(mcp_url, bonds, make_key):
    bond_offers_upsert(source="short", offers=[offer("S", 20, index="cdi*", rate=1.0, name="CDB 20 dias")])
    bond_returns_recompute()
    short = Bond.objects.get(natural_key="S")
    result = structured(
        mcp_url, "project_bond", {"bond_id": short.pk, "amount": 10_000}, key=ok_key(make_key)
    )
    gain = result["gross_amount"] - 10_000
    settles = finance.settlement_date(timezone.localdate())
    held = (finance.next_business_day(short.maturity_date) - settles).days  # 17 to 22
    share = finance.iof_rate(held)
    assert (result["calendar_days"], result["iof_rate"], result["income_tax_rate"]) == (held, share, 0.225)
    assert result["iof"] == pytest.approx(gain * share, abs=0.01)
    assert result["income_tax"] == pytest.approx((gain - result["iof"]) * 0.225, abs=0.01)
    assert result["net_annualized_return"] == pytest.approx(short.net_annualized_return, abs=1e-6)
    assert any(f"IOF takes {share:.0%}" in note for note in result["notes"])
    assert result["bond"]["net_return_cdi_percent"] == pytest.approx(1.0, abs=1e-6)
    cdb = structured(mcp_url, "list_bonds", {"product": ["cdb"], "index": ["cdi*"], "amount": 10_000})
    item = next(bond for bond in cdb["bonds"] if bond["id"] == short.pk)
    assert item["projection"]["iof"] == result["iof"] and item["liquidity_days"] is None


def test_project_bond_without_a_key_is_a_labelled_preview(mcp_url, bonds):
    result = structured(mcp_url, "project_bond", {"bond_id": bonds["C"].pk, "amount": 10_000})
    assert result["status"] == statuses.PREVIEW and result["preview"] is True
    assert result["net_amount"] > 10_000
    assert result["bond"]["index"] == "cdi*"


def test_project_bond_of_an_unknown_or_inactive_bond_is_a_tool_error(mcp_url, bonds, make_key, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 3600
    key = ok_key(make_key)
    Bond.objects.filter(pk=bonds["H"].pk).update(is_active=False)
    for bond_id in (bonds["H"].pk, 999_999_999):
        result = call(mcp_url, "project_bond", {"bond_id": bond_id, "amount": 1000}, key=key)
        assert result.is_error
        assert f"No active bond has id {bond_id}" in result.content[0].text
    # A mistyped id does not use up the key's interval.
    assert structured(mcp_url, "list_bonds", key=key)["status"] == statuses.OK


def test_explain_bonds_documents_fields_formulas_statuses_and_current_projections(mcp_url, bonds):
    guide = structured(mcp_url, "explain_bonds")
    assert set(BOND_FIELDS) <= {field["name"] for field in guide["fields"]}
    assert {status["status"] for status in guide["statuses"]} == set(statuses.ALL)
    assert {item["code"] for item in guide["indexes"]} == set(finance.INDEX_KINDS)
    assert len(guide["products"]) == 10
    assert [(row["max_calendar_days"], row["rate"]) for row in guide["income_tax_table"]] == list(
        finance.INCOME_TAX_TABLE
    )
    formulas = " ".join(item["formula"] for item in guide["formulas"])
    assert "F_net = 1 + (F_fee - 1) * (1 - iof(dc)) * (1 - t(dc))" in formulas
    assert [(row["calendar_days"], row["rate"]) for row in guide["iof_table"]] == [
        (day, finance.iof_rate(day)) for day in range(1, 30)
    ]
    assert {"liquidity_days", "grace_period_days", "net_return_cdi_percent"} <= {
        f["name"] for f in guide["fields"]
    }
    assert "(1 + net) / (1 + pi) - 1" in formulas
    assert guide["assumptions"]["selic_target_pct"] == 15.0
    assert guide["today"] == timezone.localdate().isoformat()


def test_explain_bonds_answers_before_any_projection_exists(mcp_url, transactional_db):
    guide = structured(mcp_url, "explain_bonds")
    assert guide["assumptions"] is None
    assert guide["fields"]


def test_list_bonds_with_no_projection_reports_null_returns_not_an_error(mcp_url, transactional_db, make_key):
    bond_offers_upsert(source="test", offers=[offer("Z", 800, index="cdi*", rate=1.0)])
    bond_returns_recompute()
    result = structured(mcp_url, "list_bonds", {"amount": 5000}, key=ok_key(make_key))
    assert result["assumptions"] is None
    assert result["bonds"][0]["net_annualized_return"] is None
    assert result["bonds"][0]["projection"]["net_amount"] is None
