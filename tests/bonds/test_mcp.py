"""The bonds MCP server at /bonds/mcp: its tools, `list_bonds` and the keys that may call it."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta

import httpx2
import pytest
from django.utils import timezone
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from accounts.models import ApiKey
from accounts.services import api_key_revoke
from bonds import statuses
from bonds.models import Bond
from bonds.rendering import BOND_FIELDS
from tests.bonds.mcp_support import call, call_async, expected_net, mcp_headers, ok_key, structured

pytestmark = pytest.mark.django_db(transaction=True)


# --- Tools ------------------------------------------------------------------------------------------------


def test_the_server_lists_three_tools_with_input_and_output_schemas(mcp_url):
    async def tools():
        async with Client(mcp_url) as client:
            return (await client.list_tools()).tools

    listed = {tool.name: tool for tool in asyncio.run(tools())}
    assert set(listed) == {"list_bonds", "project_bond", "explain_bonds"}
    for tool in listed.values():
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.description
        assert tool.annotations.read_only_hint is True
    list_inputs = listed["list_bonds"].input_schema["properties"]
    assert {"product", "index", "bank", "tax_free", "fgc", "min_maturity", "max_maturity", "sort"} <= set(
        list_inputs
    )
    assert set(listed["project_bond"].input_schema["required"]) == {"bond_id", "amount"}
    assert "status" in listed["list_bonds"].output_schema["properties"]


def test_the_legacy_initialize_handshake_works_too(mcp_url, bonds):
    async def run():
        async with (
            httpx2.AsyncClient() as http,
            streamable_http_client(mcp_url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            result = await session.call_tool("list_bonds", {"limit": 1})
            return names, result

    names, result = asyncio.run(run())
    assert "list_bonds" in names
    assert result.structured_content["status"] == "preview"
    assert result.structured_content["returned"] == 1


def test_list_bonds_without_a_key_is_a_labelled_preview_of_at_most_five_bonds(mcp_url, bonds):
    result = structured(mcp_url, "list_bonds")
    assert result["status"] == statuses.PREVIEW
    assert result["preview"] is True
    assert result["description"] == statuses.description(statuses.PREVIEW)
    assert result["matching"] == 8
    assert result["returned"] == len(result["bonds"]) == 5
    nets = [bond["net_annualized_return"] for bond in result["bonds"]]
    assert nets == sorted(nets, reverse=True)
    best = max(bonds.values(), key=lambda bond: bond.net_annualized_return)
    assert result["bonds"][0]["id"] == best.pk
    # Even a larger limit stays a preview.
    assert structured(mcp_url, "list_bonds", {"limit": 50})["returned"] == 5


def test_list_bonds_with_an_active_subscription_returns_every_bond_with_all_fields(mcp_url, bonds, make_key):
    result = structured(mcp_url, "list_bonds", key=ok_key(make_key))
    assert result["status"] == statuses.OK
    assert result["preview"] is False
    assert result["matching"] == result["returned"] == 8
    first = result["bonds"][0]
    assert set(BOND_FIELDS) <= set(first)
    bond = Bond.objects.get(pk=first["id"])
    for name in BOND_FIELDS:
        expected = getattr(bond, name)
        assert first[name] == (expected.isoformat() if isinstance(expected, date) else expected), name
    assert result["today"] == timezone.localdate().isoformat()
    assert result["assumptions"]["selic_target_pct"] == 15.0
    assert result["assumptions"]["ipca_12m_pct"] == 4.5


def test_list_bonds_for_ten_thousand_over_two_years_projects_each_bond(mcp_url, bonds, make_key, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 0
    today = timezone.localdate()
    key = ok_key(make_key)
    result = structured(
        mcp_url,
        "list_bonds",
        {
            "min_maturity": (today + timedelta(days=700)).isoformat(),
            "max_maturity": (today + timedelta(days=760)).isoformat(),
            "amount": 10_000,
            "sort": "net_return",
        },
        key=key,
    )
    assert result["status"] == statuses.OK
    assert {bond["id"] for bond in result["bonds"]} == {bonds["A"].pk, bonds["B"].pk, bonds["C"].pk}
    nets = [bond["net_annualized_return"] for bond in result["bonds"]]
    assert nets == sorted(nets, reverse=True)
    by_id = {bond["id"]: bond for bond in result["bonds"]}
    taxed = by_id[bonds["A"].pk]["projection"]
    assert taxed["amount"] == 10_000
    assert taxed["net_amount"] == pytest.approx(
        expected_net(10_000, 0.13, bonds["A"].maturity_date, tax=0.15), abs=0.01
    )
    assert taxed["income_tax"] == pytest.approx(taxed["gross_amount"] - taxed["net_amount"], abs=0.011)
    assert taxed["net_gain"] == pytest.approx(taxed["net_amount"] - 10_000, abs=0.001)
    exempt = by_id[bonds["B"].pk]["projection"]
    assert exempt["income_tax"] == 0
    assert exempt["net_amount"] == pytest.approx(
        expected_net(10_000, 0.11, bonds["B"].maturity_date, tax=0.0), abs=0.01
    )
    assert all(bond["projection"]["meets_min_investment"] for bond in result["bonds"])
    assert all(1.9 < bond["years_to_maturity"] < 2.1 for bond in result["bonds"])

    # The amount leaves out bonds it cannot buy (E needs BRL 50,000).
    affordable = structured(mcp_url, "list_bonds", {"amount": 10_000}, key=key)
    assert affordable["matching"] == 7
    assert bonds["E"].pk not in {bond["id"] for bond in affordable["bonds"]}


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"product": ["lci", "lca"]}, {"B", "D"}),
        ({"index": ["ipca+"]}, {"D"}),
        ({"index": ["cdi*", "cdi+"]}, {"C", "E", "H"}),
        ({"bank": [0]}, {"F"}),
        ({"tax_free": True}, {"B", "D", "G"}),
        ({"tax_free": False}, {"A", "C", "E", "F", "H"}),
        ({"fgc": False}, {"E", "F", "G", "H"}),
        ({"product": ["cdb"], "fgc": True, "index": ["pre"]}, {"A"}),
    ],
)
def test_list_bonds_applies_the_rest_filters(mcp_url, bonds, make_key, arguments, expected):
    result = structured(mcp_url, "list_bonds", arguments, key=ok_key(make_key))
    assert {bond["id"] for bond in result["bonds"]} == {bonds[name].pk for name in expected}
    assert result["matching"] == len(expected)


def test_list_bonds_sorts_by_net_return_real_return_or_maturity_and_honours_the_limit(
    mcp_url, bonds, make_key, settings
):
    settings.BONDS_KEY_INTERVAL_SECONDS = 0
    key = ok_key(make_key)
    real = structured(mcp_url, "list_bonds", {"sort": "real_return"}, key=key)["bonds"]
    values = [bond["real_annualized_return"] for bond in real]
    assert values == sorted(values, reverse=True)
    maturity = structured(mcp_url, "list_bonds", {"sort": "maturity"}, key=key)["bonds"]
    assert [bond["maturity_date"] for bond in maturity] == sorted(bond["maturity_date"] for bond in maturity)
    assert maturity[0]["id"] == bonds["G"].pk
    limited = structured(mcp_url, "list_bonds", {"limit": 2}, key=key)
    assert limited["returned"] == 2 and limited["matching"] == 8


def test_list_bonds_rejects_bad_arguments_with_a_tool_error(mcp_url, bonds):
    for arguments in (
        {"product": ["stocks"]},
        {"amount": 0},
        {"limit": 0},
        {"min_maturity": "2030-01-01", "max_maturity": "2029-01-01"},
        {"min_maturity": "next year"},
    ):
        result = call(mcp_url, "list_bonds", arguments)
        assert result.is_error, arguments
        assert result.content[0].text
    assert (
        "min_maturity must not be after max_maturity"
        in call(mcp_url, "list_bonds", {"min_maturity": "2030-01-01", "max_maturity": "2029-01-01"})
        .content[0]
        .text
    )


def _revoked(make_key) -> str:
    plaintext = make_key(ApiKey.Role.VIEWER)
    api_key_revoke(key=ApiKey.objects.latest("id"))
    return plaintext


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        (lambda make_key, make_account: "pk_unknown_0000000000000000", statuses.UNAUTHORIZED),
        (lambda make_key, make_account: _revoked(make_key), statuses.UNAUTHORIZED),
        (
            lambda make_key, make_account: make_key(
                ApiKey.Role.VIEWER, expires_at=timezone.now() - timedelta(minutes=1)
            ),
            statuses.UNAUTHORIZED,
        ),
        (
            lambda make_key, make_account: make_key(ApiKey.Role.VIEWER, allowed_ips=["10.0.0.0/8"]),
            statuses.UNAUTHORIZED,
        ),
        (
            lambda make_key, make_account: make_key(
                for_account=make_account(name="nosub", bonds_subscription=None)
            ),
            statuses.NO_SUBSCRIPTION,
        ),
        (
            lambda make_key, make_account: make_key(
                for_account=make_account(name="canceled", bonds_subscription="canceled")
            ),
            statuses.NO_SUBSCRIPTION,
        ),
        (
            lambda make_key, make_account: make_key(
                for_account=make_account(name="late", bonds_subscription="past_due")
            ),
            statuses.PAYMENT_ISSUE,
        ),
    ],
    ids=["unknown", "revoked", "expired", "outside-allowed-ips", "no-subscription", "canceled", "past-due"],
)
def test_keys_that_may_not_list_get_their_status_and_no_bonds(
    mcp_url, bonds, make_key, make_account, setup, expected
):
    key = setup(make_key, make_account)
    for tool, arguments in (("list_bonds", {}), ("project_bond", {"bond_id": bonds["A"].pk, "amount": 1000})):
        result = structured(mcp_url, tool, arguments, key=key)
        assert result["status"] == expected, tool
        assert result["description"] == statuses.description(expected)
        assert result["preview"] is False
        if tool == "list_bonds":
            assert result["bonds"] == [] and result["matching"] == 0
        else:
            assert result["bond"] is None and result["net_amount"] is None


def test_a_second_keyed_call_within_the_interval_is_rate_limited(mcp_url, bonds, make_key, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 3600  # far longer than the test, so the outcome is certain
    key = ok_key(make_key)
    assert structured(mcp_url, "list_bonds", key=key)["status"] == statuses.OK
    limited = structured(mcp_url, "list_bonds", key=key)
    assert limited["status"] == statuses.RATE_LIMITED
    assert limited["bonds"] == []
    assert limited["description"] == statuses.description(statuses.RATE_LIMITED)
    projected = structured(mcp_url, "project_bond", {"bond_id": bonds["A"].pk, "amount": 1000}, key=key)
    assert projected["status"] == statuses.RATE_LIMITED and projected["bond"] is None
    # Another key has its own interval; calls without a key have none.
    assert structured(mcp_url, "list_bonds", key=ok_key(make_key))["status"] == statuses.OK
    assert structured(mcp_url, "list_bonds")["status"] == statuses.PREVIEW


def test_of_concurrent_keyed_calls_exactly_one_gets_the_bonds(mcp_url, bonds, make_key, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 3600
    key = ok_key(make_key)

    async def together():
        return await asyncio.gather(*(call_async(mcp_url, "list_bonds", {}, key) for _ in range(6)))

    found = sorted(result.structured_content["status"] for result in asyncio.run(together()))
    assert found == [statuses.OK] + [statuses.RATE_LIMITED] * 5


def test_the_interval_is_shared_with_the_rest_api(mcp_url, live_server_url, bonds, make_key, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 3600
    key = ok_key(make_key)
    rest = httpx2.get(live_server_url + "/bonds/api/", headers=mcp_headers(key))
    assert rest.json()["response"]["status"] == statuses.OK
    assert structured(mcp_url, "list_bonds", key=key)["status"] == statuses.RATE_LIMITED


def test_the_key_may_also_be_given_in_the_url(mcp_url, bonds, make_key):
    result = structured(mcp_url + "?key=" + ok_key(make_key), "list_bonds")
    assert result["status"] == statuses.OK and result["returned"] == 8
