"""GET /bonds/api/{id}/projection answers what the MCP tool project_bond answers: the same figures and
JSON, the same statuses as the list (issue 43, item 11)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import ApiKey
from bonds import statuses
from bonds.figures import bond_returns_recompute
from bonds.mcp.project import bond_projection
from bonds.models import Bond
from bonds.offers import bond_offers_upsert
from bonds.providers.base import Offer
from tests.bonds.test_assumptions import snapshot
from tests.bonds.test_list_api import bearer

pytestmark = pytest.mark.django_db


@pytest.fixture
def cdb() -> Bond:
    snapshot()
    offer = Offer(natural_key="cdb", name="CDB 136% CDI", bank=77, bank_name="Banco Inter", product="cdb",
                  index="cdi*", rate=1.36, maturity_date=timezone.localdate() + timedelta(days=5 * 365),
                  fgc_protection=True, rating="brA", rating_given=True, min_investment=1000.0)  # fmt: skip
    bond_offers_upsert(source="t", offers=[offer])
    bond_returns_recompute()
    return Bond.objects.get(natural_key="cdb")


def url(bond: Bond) -> str:
    return f"/bonds/api/{bond.pk}/projection"


def test_a_subscribed_key_gets_exactly_what_project_bond_answers(client, key, cdb):
    response = client.get(url(cdb), {"amount": "300000"}, **bearer(key))
    assert response.status_code == 200 and response["X-Ponte-Status"] == "ok"
    body = response.json()
    expected = bond_projection(status=statuses.OK, bond=cdb, amount=300_000).model_dump(mode="json")
    assert body == expected
    assert body["net_amount"] > 300_000 and body["bond"]["fgc_covered_share"] < 0.5
    assert any("BRL 250,000" in note for note in body["notes"])


def test_without_a_key_it_is_a_preview_with_the_same_figures(client, cdb):
    body = client.get(url(cdb), {"amount": "1000"}).json()
    assert body["status"] == "preview" and body["preview"] is True
    assert body["net_amount"] == bond_projection(status=statuses.OK, bond=cdb, amount=1000).net_amount


def test_a_key_without_a_subscription_gets_its_status_and_no_figures(client, cdb, make_account, make_key):
    account = make_account(bonds_subscription=None)
    body = client.get(
        url(cdb), {"amount": "1000"}, **bearer(make_key(ApiKey.Role.VIEWER, for_account=account))
    )
    assert body.json()["status"] == "no_subscription" and body.json()["net_amount"] is None


def test_keyed_calls_keep_the_five_second_rule(client, make_key, cdb, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 5
    key = make_key(ApiKey.Role.VIEWER)
    assert client.get(url(cdb), {"amount": "1000"}, **bearer(key)).json()["status"] == "ok"
    assert client.get(url(cdb), {"amount": "1000"}, **bearer(key))["X-Ponte-Status"] == "rate_limited"


@pytest.mark.parametrize("amount", [None, "", "abc", "-5", "0", "1e5", "10.000,50", "2000000000000"])
def test_a_missing_or_odd_amount_is_a_bad_request_in_the_bonds_shape(client, cdb, amount):
    response = client.get(url(cdb), {} if amount is None else {"amount": amount})
    assert response.status_code == 200
    body = response.json()
    assert body["response"]["status"] == "bad_request" and "amount" in body["response"]["description"]


def test_an_unknown_bond_is_not_found(client, cdb):
    response = client.get(f"/bonds/api/{cdb.pk + 1000}/projection", {"amount": "1000"})
    assert response.status_code == 200 and response.json()["response"]["status"] == "not_found"
    assert "List the bonds" in response.json()["response"]["description"]


def test_an_inactive_bond_is_not_found(client, cdb):
    Bond.objects.filter(pk=cdb.pk).update(is_active=False)
    assert client.get(url(cdb), {"amount": "1000"}).json()["response"]["status"] == "not_found"
