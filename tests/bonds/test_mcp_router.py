"""The router: the MCP server and Django side by side on one ASGI application."""

from __future__ import annotations

import json

import httpx2
import pytest

from bonds import statuses
from tests.bonds.mcp_support import MCP, serving, structured

pytestmark = pytest.mark.django_db(transaction=True)


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
