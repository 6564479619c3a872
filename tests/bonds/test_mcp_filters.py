"""MCP list_bonds takes the investor filters of GET /bonds/api/ (rating_min, every REST sort) and
lists the same ids as the REST JSON, the ids project_bond takes."""

from __future__ import annotations

import asyncio

import pytest
from mcp import Client

from bonds.filters import SORT_VALUES
from bonds.models import Bond
from bonds.ratings import RATING_MIN_VALUES
from tests.bonds.mcp_support import call, ok_key, structured
from tests.bonds.test_list_api import bearer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def rated(bonds) -> dict[str, Bond]:
    """The MCP offers (all brAA, F is Tesouro) with a spread of ratings."""
    for name, rating in (("A", "brAAA"), ("C", "AA+(bra)"), ("D", "brA+"), ("E", "BB-"), ("H", "-")):
        Bond.objects.filter(natural_key=name).update(rating=rating)
    return bonds


@pytest.fixture
def key(make_key, settings) -> str:
    settings.BONDS_KEY_INTERVAL_SECONDS = 0
    return ok_key(make_key)


def test_list_bonds_declares_rating_min_and_every_rest_sort_in_its_input_schema(mcp_url):
    async def tools():
        async with Client(mcp_url) as client:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

    list_bonds = asyncio.run(tools())["list_bonds"]
    inputs = list_bonds.input_schema["properties"]
    rating = next(part for part in inputs["rating_min"]["anyOf"] if "enum" in part)
    assert rating["enum"] == list(RATING_MIN_VALUES)
    assert "national scale" in inputs["rating_min"]["description"]
    assert set(inputs["sort"]["enum"]) == {"net_return", "real_return", "maturity", *SORT_VALUES}
    for word in ("rating_min", "amount", "sort", "maturity_from", "ignores values outside"):
        assert word in list_bonds.description, word


def test_rating_min_keeps_the_bonds_rated_at_least_that_and_federal_ones(mcp_url, rated, key):
    result = structured(mcp_url, "list_bonds", {"rating_min": "brAA+"}, key=key)
    assert {bond["id"] for bond in result["bonds"]} == {rated["A"].pk, rated["C"].pk, rated["F"].pk}
    lowest = structured(mcp_url, "list_bonds", {"rating_min": "brD"}, key=key)
    assert rated["E"].pk not in {bond["id"] for bond in lowest["bonds"]}  # global scale
    assert lowest["matching"] == 6  # all but the global BB- and the omitted "-"


@pytest.mark.parametrize("sort", ["min_investment", "-min_investment", "-maturity_date", "rate"])
def test_list_bonds_sorts_by_any_rest_sort_the_same_as_the_rest_list(mcp_url, api_client, rated, key, sort):
    result = structured(mcp_url, "list_bonds", {"sort": sort, "limit": 50}, key=key)
    rest = api_client.get(f"/bonds/api/?sort={sort}", **bearer(key)).json()["bonds"]
    assert [bond["id"] for bond in result["bonds"]] == [bond["id"] for bond in rest]


def test_the_old_sort_names_still_work(mcp_url, api_client, rated, key):
    for old, rest in (
        ("net_return", ""),
        ("real_return", "-real_annualized_return"),
        ("maturity", "maturity_date"),
    ):
        result = structured(mcp_url, "list_bonds", {"sort": old, "limit": 50}, key=key)
        listed = api_client.get(f"/bonds/api/?sort={rest}", **bearer(key)).json()["bonds"]
        assert [bond["id"] for bond in result["bonds"]] == [bond["id"] for bond in listed], old


def test_filters_combine_as_in_the_rest_list(mcp_url, api_client, rated, key):
    arguments = {"rating_min": "brA+", "amount": 1000, "max_maturity": rated["D"].maturity_date.isoformat()}
    result = structured(mcp_url, "list_bonds", {**arguments, "sort": "-maturity_date"}, key=key)
    query = f"rating_min=brA%2B&amount=1000&maturity_to={arguments['max_maturity']}&sort=-maturity_date"
    rest = api_client.get(f"/bonds/api/?{query}", **bearer(key)).json()["bonds"]
    assert [bond["id"] for bond in result["bonds"]] == [bond["id"] for bond in rest]
    # B needs 5,000; E and H are not rated brA+ or better; F and H mature after D.
    assert {bond["id"] for bond in rest} == {rated[name].pk for name in ("A", "C", "D", "G")}


def test_a_rating_outside_the_list_is_a_tool_error_naming_the_accepted_ones(mcp_url, rated):
    result = call(mcp_url, "list_bonds", {"rating_min": "AAAA"})
    assert result.is_error and "brAAA" in result.content[0].text
    assert call(mcp_url, "list_bonds", {"sort": "name"}).is_error


def test_the_rest_ids_are_the_ids_list_bonds_lists_and_project_bond_takes(mcp_url, api_client, rated, key):
    rest = api_client.get("/bonds/api/", **bearer(key)).json()["bonds"]
    listed = structured(mcp_url, "list_bonds", {"limit": 50}, key=key)["bonds"]
    assert [bond["id"] for bond in rest] == [bond["id"] for bond in listed]
    assert {bond["id"] for bond in rest} == {bond.pk for bond in rated.values()}
    for bond in rest[:2]:
        projected = structured(mcp_url, "project_bond", {"bond_id": bond["id"], "amount": 10_000}, key=key)
        assert projected["bond"]["id"] == bond["id"] and projected["bond"]["name"] == bond["name"]
