"""The bonds MCP server at /bonds/mcp, driven by the MCP SDK's own client (Streamable HTTP) against a
live uvicorn serving `config.asgi.application` (the router) on 127.0.0.1, backed by the test
database (`transactional_db`, so the server's threads see what the test wrote)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from datetime import date, timedelta

import httpx2
import pytest
import uvicorn
from django.utils import timezone
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from accounts.models import ApiKey
from accounts.services import api_key_revoke
from bonds import finance, statuses
from bonds.models import Bond, ProjectionSnapshot
from bonds.providers.base import Offer
from bonds.rendering import BOND_FIELDS
from bonds.services import bond_offers_upsert, bond_returns_recompute

pytestmark = pytest.mark.django_db(transaction=True)
MCP = "/bonds/mcp"


# --- The live server ----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(app, *, lifespan: str = "on") -> Iterator[str]:
    """uvicorn serving `app` in a thread of this process on a free 127.0.0.1 port: same settings, same
    cache, and the test database (its name is set by django_db_setup)."""
    config = uvicorn.Config(
        app, host="127.0.0.1", port=_free_port(), lifespan=lifespan, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-mcp", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped while starting"
        assert time.monotonic() < deadline, "uvicorn did not start within 30 s"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def live_server_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    """`config.asgi.application`, the router `make run` serves, once for the module."""
    from config.asgi import application

    with serving(application) as url:
        yield url


@pytest.fixture
def mcp_url(live_server_url: str) -> str:
    return live_server_url + MCP


def _headers(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


async def _call(url: str, tool: str, arguments: dict, key: str | None):
    async with (
        httpx2.AsyncClient(headers=_headers(key), timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        return await client.call_tool(tool, arguments)


def call(url: str, tool: str, arguments: dict | None = None, key: str | None = None):
    return asyncio.run(_call(url, tool, arguments or {}, key))


def structured(url: str, tool: str, arguments: dict | None = None, key: str | None = None) -> dict:
    result = call(url, tool, arguments, key)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


# --- Data: real offers through the refresh's own services ---------------------------------------------


def _offer(key: str, days: int, **values) -> Offer:
    defaults = {
        "natural_key": key,
        "name": f"Bond {key}",
        "bank": 77,
        "bank_name": "Banco Inter",
        "product": "cdb",
        "index": "pre",
        "rate": 0.12,
        "maturity_date": timezone.localdate() + timedelta(days=days),
        "fgc_protection": True,
        "min_investment": 1000.0,
        "rating": "brAA",
        "rating_given": True,
    }
    return Offer(**{**defaults, **values})


@pytest.fixture
def bonds(transactional_db) -> dict[str, Bond]:
    """Eight offers of every kind; returns computed by the refresh's recompute from a flat projection
    (Selic target 15%, CDI 14.9%, IPCA 4.5%)."""
    offers = [
        _offer("A", 730, product="cdb", index="pre", rate=0.13),
        _offer("B", 740, product="lca", index="pre", rate=0.11, tax_free=True, min_investment=5000.0),
        _offer("C", 735, product="cdb", index="cdi*", rate=1.10, min_investment=500.0),
        _offer("D", 1100, product="lci", index="ipca+", rate=0.06, tax_free=True),
        _offer(
            "E", 1825, product="deb", index="cdi+", rate=0.02, fgc_protection=False, min_investment=50_000.0
        ),
        _offer(
            "F",
            1460,
            product="td",
            index="selic+",
            rate=0.0005,
            fgc_protection=False,
            bank=0,
            bank_name="Tesouro Nacional",
            min_investment=100.0,
            early_withdrawal=True,
        ),
        _offer("G", 365, product="cra", index="ipca*", rate=1.1, fgc_protection=False, tax_free=True),
        _offer("H", 2190, product="lf", index="cdi*", rate=1.0, fgc_protection=False, exclusive=True),
    ]
    bond_offers_upsert(source="test", offers=offers)
    ProjectionSnapshot.objects.create(
        date=timezone.localdate(), selic_current=15.0, cdi_current=14.9, ipca_12m=4.5
    )
    bond_returns_recompute()
    return {bond.natural_key: bond for bond in Bond.objects.all()}


def _ok_key(make_key) -> str:
    return make_key(ApiKey.Role.VIEWER)


def _expected_net(amount: float, rate: float, maturity: date, *, tax: float) -> float:
    """A fixed-rate bond: F = (1 + r)^(du/252), net = amount * (1 + (F - 1)(1 - tax))."""
    factor = (1 + rate) ** (finance.business_days(timezone.localdate(), maturity) / 252)
    return amount * (1 + (factor - 1) * (1 - tax))


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
    result = structured(mcp_url, "list_bonds", key=_ok_key(make_key))
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
    key = _ok_key(make_key)
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
        _expected_net(10_000, 0.13, bonds["A"].maturity_date, tax=0.15), abs=0.01
    )
    assert taxed["income_tax"] == pytest.approx(taxed["gross_amount"] - taxed["net_amount"], abs=0.011)
    assert taxed["net_gain"] == pytest.approx(taxed["net_amount"] - 10_000, abs=0.001)
    exempt = by_id[bonds["B"].pk]["projection"]
    assert exempt["income_tax"] == 0
    assert exempt["net_amount"] == pytest.approx(
        _expected_net(10_000, 0.11, bonds["B"].maturity_date, tax=0.0), abs=0.01
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
    result = structured(mcp_url, "list_bonds", arguments, key=_ok_key(make_key))
    assert {bond["id"] for bond in result["bonds"]} == {bonds[name].pk for name in expected}
    assert result["matching"] == len(expected)


def test_list_bonds_sorts_by_net_return_real_return_or_maturity_and_honours_the_limit(
    mcp_url, bonds, make_key, settings
):
    settings.BONDS_KEY_INTERVAL_SECONDS = 0
    key = _ok_key(make_key)
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
    key = _ok_key(make_key)
    assert structured(mcp_url, "list_bonds", key=key)["status"] == statuses.OK
    limited = structured(mcp_url, "list_bonds", key=key)
    assert limited["status"] == statuses.RATE_LIMITED
    assert limited["bonds"] == []
    assert limited["description"] == statuses.description(statuses.RATE_LIMITED)
    projected = structured(mcp_url, "project_bond", {"bond_id": bonds["A"].pk, "amount": 1000}, key=key)
    assert projected["status"] == statuses.RATE_LIMITED and projected["bond"] is None
    # Another key has its own interval; calls without a key have none.
    assert structured(mcp_url, "list_bonds", key=_ok_key(make_key))["status"] == statuses.OK
    assert structured(mcp_url, "list_bonds")["status"] == statuses.PREVIEW


def test_of_concurrent_keyed_calls_exactly_one_gets_the_bonds(mcp_url, bonds, make_key, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 3600
    key = _ok_key(make_key)

    async def together():
        return await asyncio.gather(*(_call(mcp_url, "list_bonds", {}, key) for _ in range(6)))

    found = sorted(result.structured_content["status"] for result in asyncio.run(together()))
    assert found == [statuses.OK] + [statuses.RATE_LIMITED] * 5


def test_the_interval_is_shared_with_the_rest_api(mcp_url, live_server_url, bonds, make_key, settings):
    settings.BONDS_KEY_INTERVAL_SECONDS = 3600
    key = _ok_key(make_key)
    rest = httpx2.get(live_server_url + "/bonds/api/", headers=_headers(key))
    assert rest.json()["response"]["status"] == statuses.OK
    assert structured(mcp_url, "list_bonds", key=key)["status"] == statuses.RATE_LIMITED


def test_the_key_may_also_be_given_in_the_url(mcp_url, bonds, make_key):
    result = structured(mcp_url + "?key=" + _ok_key(make_key), "list_bonds")
    assert result["status"] == statuses.OK and result["returned"] == 8


def test_project_bond_gives_the_net_amount_at_maturity_step_by_step(mcp_url, bonds, make_key):
    bond = bonds["A"]
    result = structured(
        mcp_url, "project_bond", {"bond_id": bond.pk, "amount": 10_000}, key=_ok_key(make_key)
    )
    today = timezone.localdate()
    assert result["status"] == statuses.OK and result["preview"] is False
    assert result["bond"]["id"] == bond.pk and result["bond"]["name"] == bond.name
    assert result["business_days"] == finance.business_days(today, bond.maturity_date)
    assert result["calendar_days"] == (bond.maturity_date - today).days == 730
    assert result["income_tax_rate"] == 0.15  # 730 calendar days: past 720, the 15% bracket
    expected = _expected_net(10_000, 0.13, bond.maturity_date, tax=0.15)
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
    key = _ok_key(make_key)
    small = structured(mcp_url, "project_bond", {"bond_id": bonds["B"].pk, "amount": 1000}, key=key)
    assert small["meets_min_investment"] is False
    assert small["income_tax"] == 0 and small["income_tax_rate"] == 0
    assert any("minimum investment" in note for note in small["notes"])
    treasury = structured(mcp_url, "project_bond", {"bond_id": bonds["F"].pk, "amount": 20_000}, key=key)
    assert treasury["custody_fee_rate"] == finance.TESOURO_CUSTODY_FEE
    assert treasury["custody_fee"] > 0
    assert any("custody fee" in note for note in treasury["notes"])


def test_project_bond_uses_the_same_path_iof_and_tax_as_the_listing(mcp_url, bonds, make_key):
    bond_offers_upsert(source="short", offers=[_offer("S", 20, index="cdi*", rate=1.0, name="CDB 20 dias")])
    bond_returns_recompute()
    short = Bond.objects.get(natural_key="S")
    result = structured(
        mcp_url, "project_bond", {"bond_id": short.pk, "amount": 10_000}, key=_ok_key(make_key)
    )
    gain = result["gross_amount"] - 10_000
    assert (result["calendar_days"], result["iof_rate"], result["income_tax_rate"]) == (20, 0.33, 0.225)
    assert result["iof"] == pytest.approx(gain * 0.33, abs=0.01)
    assert result["income_tax"] == pytest.approx((gain - result["iof"]) * 0.225, abs=0.01)
    assert result["net_annualized_return"] == pytest.approx(short.net_annualized_return, abs=1e-6)
    assert any("IOF takes 33%" in note for note in result["notes"])
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
    key = _ok_key(make_key)
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
    bond_offers_upsert(source="test", offers=[_offer("Z", 800, index="cdi*", rate=1.0)])
    bond_returns_recompute()
    result = structured(mcp_url, "list_bonds", {"amount": 5000}, key=_ok_key(make_key))
    assert result["assumptions"] is None
    assert result["bonds"][0]["net_annualized_return"] is None
    assert result["bonds"][0]["projection"]["net_amount"] is None


# --- The router: MCP and Django side by side ----------------------------------------------------------


def test_a_raw_stateless_post_lists_tools_without_initialize(mcp_url):
    reply = httpx2.post(
        mcp_url,
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
    )
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("application/json")
    tools = reply.json()["result"]["tools"]
    assert {tool["name"] for tool in tools} == {"list_bonds", "project_bond", "explain_bonds"}
    assert all("outputSchema" in tool for tool in tools)
    assert "mcp-session-id" not in reply.headers  # stateless: any web process can answer


def test_django_still_serves_admin_docs_health_and_the_rest_api_through_the_router(live_server_url, bonds):
    admin = httpx2.get(live_server_url + "/admin/")
    assert admin.status_code == 302 and "/admin/login/" in admin.headers["location"]
    login = httpx2.get(live_server_url + "/admin/login/")
    assert login.status_code == 200 and "csrfmiddlewaretoken" in login.text
    docs = httpx2.get(live_server_url + "/docs/")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    assert httpx2.get(live_server_url + "/healthz").json() == {"status": "ok"}
    listing = httpx2.get(live_server_url + "/bonds/api/").json()
    assert listing["response"]["status"] == statuses.PREVIEW and len(listing["bonds"]) == 5
    # Only the MCP path itself goes to the MCP app: a lookalike path is Django's bonds catch-all.
    lookalike = httpx2.get(live_server_url + "/bonds/mcpx").json()
    assert lookalike["response"]["status"] == "not_found" and lookalike["bonds"] == []
    assert httpx2.get(live_server_url + "/nowhere").status_code == 404


def test_the_mcp_path_with_a_trailing_slash_redirects_to_the_exact_path(live_server_url):
    reply = httpx2.post(
        live_server_url + MCP + "/", content=b"{}", headers={"Content-Type": "application/json"}
    )
    assert reply.status_code == 307
    assert reply.headers["location"].endswith(MCP)


def test_protected_resource_metadata_says_keys_go_in_the_bearer_header(live_server_url):
    for path in ("/.well-known/oauth-protected-resource" + MCP, "/.well-known/oauth-protected-resource"):
        metadata = httpx2.get(live_server_url + path)
        assert metadata.status_code == 200, path
        assert metadata.json()["resource"] == live_server_url + MCP
        assert metadata.json()["bearer_methods_supported"] == ["header"]


def test_hosts_outside_allowed_hosts_and_foreign_origins_are_refused(mcp_url, settings):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    evil_host = httpx2.post(mcp_url, headers={**base, "Host": "evil.example"}, content=body)
    assert evil_host.status_code == 421
    evil_origin = httpx2.post(mcp_url, headers={**base, "Origin": "https://evil.example"}, content=body)
    assert evil_origin.status_code == 403
    not_json = httpx2.post(mcp_url, headers={**base, "Content-Type": "text/plain"}, content=body)
    assert not_json.status_code == 400
    settings.ALLOWED_HOSTS = [".bonds.example"]
    allowed = httpx2.post(
        mcp_url,
        headers={**base, "Host": "api.bonds.example", "Origin": "https://api.bonds.example"},
        content=body,
    )
    assert allowed.status_code == 200


def test_each_server_start_runs_its_own_session_manager(bonds):
    from bonds.mcp.asgi import McpApp

    app = McpApp()
    for _ in range(2):  # the SDK's manager can run once: a restart must build a new one
        with serving(app) as url:
            assert structured(url + MCP, "list_bonds", {"limit": 1})["status"] == statuses.PREVIEW


def test_without_the_lifespan_the_endpoint_says_how_to_serve_it(transactional_db):
    from bonds.mcp.asgi import McpApp

    with serving(McpApp(), lifespan="off") as url:
        reply = httpx2.post(url + MCP, headers={"Content-Type": "application/json"}, content=b"{}")
    assert reply.status_code == 503
    assert "lifespan" in reply.text
