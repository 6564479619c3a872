"""The listing says what it assumed: `assumptions.cdi_path` (every CDI/Selic figure compounds over it,
recomputed here from the reply alone), IPCA by year, the survey dates and the poupança benchmark."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.utils import timezone

from accounts.models import ApiKey
from bonds import finance
from bonds.figures import bond_returns_recompute
from bonds.models import ProjectionSnapshot
from bonds.offers import bond_offers_upsert
from bonds.providers.base import Offer
from bonds.rendering import ADDED_FIELDS, BOND_FIELDS
from tests.bonds.test_list_api import URL, bearer

pytestmark = pytest.mark.django_db


@pytest.fixture
def key(make_key) -> str:
    return make_key(ApiKey.Role.VIEWER)


def snapshot(**overrides) -> ProjectionSnapshot:
    values = {
        "date": timezone.localdate(),
        "selic_current": 14.25,
        "cdi_gap": 0.10,
        "selic_by_meeting": {"R8/2026": 14.0, "R1/2027": 13.5, "R2/2027": 13.0},
        "meetings_focus_date": date(2026, 11, 13),
        "selic_by_year": {"2026": 14.0, "2027": 12.25, "2028": 10.5},
        "ipca_by_year": {"2026": 4.46, "2027": 4.0, "2028": 3.75},
        "focus_date": date(2026, 11, 13),
        "tr_monthly": 0.17,
    }
    return ProjectionSnapshot.objects.create(**{**values, **overrides})


def linked_offers() -> list[Offer]:
    today = timezone.localdate()
    common = {"bank": 77, "bank_name": "Banco Inter", "rating": "brAA", "rating_given": True}
    return [
        Offer(natural_key="cdb", name="CDB 104% CDI", product="cdb", index="cdi*", rate=1.04,
              maturity_date=today + timedelta(days=400), fgc_protection=True, **common),
        Offer(natural_key="lca", name="LCA 93% CDI", product="lca", index="cdi*", rate=0.93, tax_free=True,
              maturity_date=today + timedelta(days=800), fgc_protection=True, **common),
        Offer(natural_key="deb", name="Debênture CDI + 1.5%", product="deb", index="cdi+", rate=0.015,
              maturity_date=today + timedelta(days=1500), **common),
        Offer(natural_key="lft", name="Tesouro Selic 2029", product="td", index="selic+", rate=0.0007,
              maturity_date=date(2029, 3, 1), bank=0, bank_name="Tesouro Nacional", min_investment=150.0),
    ]  # fmt: skip


def listed(client, key: str) -> dict:
    response = client.get(URL, **bearer(key))
    assert response.status_code == 200
    return response.json()


def recomputed_net(bond: dict, path: list[dict], today: date) -> float:
    """The net return from the reply alone: the path's CDI on each business day, B3's daily factor
    for a share of the CDI, the spread for cdi+/selic+, income tax by calendar days to the payment."""
    paid = finance.next_business_day(date.fromisoformat(bond["maturity_date"]))
    starts = [date.fromisoformat(step["from"]) for step in path]
    factor, du, day = 1.0, 0, today
    while day < paid:
        if finance.is_business_day(day):
            step = path[max(i for i, start in enumerate(starts) if start <= day)]
            rate = step["selic"] if bond["index"].startswith("selic") else step["cdi"]
            daily = (1 + rate) ** (1 / 252) - 1
            factor *= 1 + daily * bond["rate"] if bond["index"].endswith("*") else 1 + daily
            du += 1
        day += timedelta(days=1)
    if bond["index"].endswith("+"):
        factor *= (1 + bond["rate"]) ** (du / 252)
    tax = 0.0 if bond["tax_free"] else finance.income_tax_rate((paid - today).days)
    return (1 + (factor - 1) * (1 - tax)) ** (252 / du) - 1


def test_every_cdi_and_selic_figure_equals_compounding_over_the_listed_path(client, key):
    snapshot()
    bond_offers_upsert(source="v3", offers=linked_offers())
    bond_returns_recompute()
    body = listed(client, key)
    path, today = body["assumptions"]["cdi_path"], timezone.localdate()
    assert path[0]["from"] == today.isoformat() and path[0]["meeting"] is None
    assert {"from", "cdi", "selic", "meeting", "estimated_date"} <= set(path[0])
    for bond in body["bonds"]:
        assert bond["net_annualized_return"] == pytest.approx(recomputed_net(bond, path, today), abs=2e-6)


def test_a_meeting_focus_names_is_on_the_path_at_an_estimated_date_until_bcb_publishes_it(client, key):
    snapshot()
    bond_offers_upsert(source="v3", offers=linked_offers()[:1])
    bond_returns_recompute()
    path = listed(client, key)["assumptions"]["cdi_path"]
    meetings = {step["meeting"]: step for step in path if step["meeting"]}
    # R1/2026 was decided on 28 January 2026: R1/2027 is placed 52 weeks later, and applies the day after.
    assert meetings["R1/2027"]["from"] == "2027-01-28" and meetings["R1/2027"]["estimated_date"] is True
    assert meetings["R1/2027"]["selic_target"] == pytest.approx(0.135)
    assert meetings["R1/2027"]["cdi"] == pytest.approx(0.134)
    assert meetings["R8/2026"]["estimated_date"] is False


def test_the_assumptions_carry_ipca_by_year_the_survey_dates_and_the_poupanca_benchmark(client, key):
    snapshot()
    bond_offers_upsert(source="v3", offers=linked_offers()[:1])
    assumptions = listed(client, key)["assumptions"]
    assert assumptions["ipca_by_year"] == {"2026": 0.0446, "2027": 0.04, "2028": 0.0375}
    assert assumptions["survey_date"] == "2026-11-13" and assumptions["meetings_survey_date"] == "2026-11-13"
    poupanca = assumptions["poupanca"]
    # Selic above 8.5% all year: 0.5% a month plus TR (0.17% a month) at every anniversary.
    assert poupanca["tr_monthly"] == pytest.approx(0.0017)
    assert poupanca["annual_return"] == pytest.approx((1.0017 * 1.005) ** 12 - 1, rel=1e-12)


def test_poupanca_pays_70_percent_of_selic_when_selic_is_8_5_percent_or_less():
    assert finance.poupanca_monthly(0.0850, 0.0) == pytest.approx(1.0595 ** (1 / 12) - 1)
    assert finance.poupanca_monthly(0.0851, 0.001) == pytest.approx(1.001 * 1.005 - 1)


def test_preview_and_statuses_without_bonds_carry_assumptions_or_null(client):
    snapshot()
    bond_offers_upsert(source="v3", offers=linked_offers()[:1])
    preview = client.get(URL).json()
    assert preview["assumptions"]["cdi_path"]
    unauthorized = client.get(URL, **bearer("ponte_nope_nope")).json()
    assert unauthorized["response"]["status"] == "unauthorized" and unauthorized["assumptions"] is None


def test_the_csv_keeps_the_seeds_columns(client, key):
    snapshot()
    bond_offers_upsert(source="v3", offers=linked_offers()[:1])
    body = client.get(URL + "?format=csv", **bearer(key)).content.decode()
    assert body.splitlines()[0].split(",") == [*BOND_FIELDS, *ADDED_FIELDS]
    assert "assumptions" not in body and "covered_payment_probability" not in body


def test_the_openapi_document_describes_the_assumptions_and_the_new_fields(client):
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    assert "assumptions" in components["BondList"]["properties"]
    assert set(components["CdiStep"]["properties"]) >= {"from", "cdi", "selic", "meeting", "estimated_date"}
    bond = components["Bond"]["properties"]
    assert {"covered_payment_probability", "liquidity_kind"} <= set(bond)
