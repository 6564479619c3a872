"""A browser opening the MCP URL gets a page on connecting a client; MCP clients get the SDK as before."""

from __future__ import annotations

import html
import json
import re
import time

import httpx2
import pytest

from tests.bonds.mcp_support import MCP

pytestmark = pytest.mark.django_db(transaction=True)

# What Chromium and Firefox send when the address is typed or a link followed.
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


def test_a_browser_gets_a_page_on_connecting_an_mcp_client_at_once(mcp_url):
    started = time.monotonic()
    page = httpx2.get(mcp_url, headers={"Accept": BROWSER_ACCEPT}, timeout=5)
    assert time.monotonic() - started < 1
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert f'<code id="mcp-url">{mcp_url}</code>' in page.text
    assert "Authorization: Bearer &lt;key&gt;" in page.text and 'href="/account/keys/"' in page.text
    assert "list_bonds" in page.text and "claude mcp add --transport http ponte-bonds " + mcp_url in page.text


def test_the_page_config_snippet_is_the_json_an_mcp_client_reads(mcp_url):
    page = httpx2.get(mcp_url, headers={"Accept": BROWSER_ACCEPT}, timeout=5).text
    snippet = re.search(r'<pre [^>]*id="mcp-config"[^>]*>(.*?)</pre>', page, re.S).group(1)
    server = json.loads(html.unescape(snippet))["mcpServers"]["ponte-bonds"]
    assert server["type"] == "http" and server["url"] == mcp_url
    assert server["headers"]["Authorization"].startswith("Bearer ponte_")


def test_a_key_in_the_visited_url_is_not_repeated_on_the_page(mcp_url):
    # A key-like value no page text contains (the word "secret" alone is in the Copy button's script).
    page = httpx2.get(
        mcp_url + "?key=ponte_abcdefgh_zq9visited", headers={"Accept": BROWSER_ACCEPT}, timeout=5
    )
    assert page.status_code == 200 and "zq9visited" not in page.text and "ponte_abcdefgh" not in page.text


def test_an_mcp_clients_get_still_opens_the_sdks_event_stream(mcp_url):
    with httpx2.stream("GET", mcp_url, headers={"Accept": "text/event-stream"}, timeout=5) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
    refused = httpx2.get(mcp_url, headers={"Accept": "application/json"}, timeout=5)
    assert refused.status_code == 406 and refused.json()["error"]["message"].startswith("Not Acceptable")


def test_a_get_in_an_mcp_session_or_asking_for_a_stream_too_is_not_a_browser_visit():
    from bonds.mcp.asgi import is_browser_visit

    def scope(method: str = "GET", path: str = MCP, **headers: str) -> dict:
        raw = [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()]
        return {"type": "http", "method": method, "path": path, "headers": raw}

    assert is_browser_visit(scope(accept=BROWSER_ACCEPT))
    assert not is_browser_visit(scope(accept="text/html, text/event-stream"))
    assert not is_browser_visit(scope(accept=BROWSER_ACCEPT, mcp_session_id="abc"))
    assert not is_browser_visit(scope(accept="*/*"))
    assert not is_browser_visit(scope("POST", accept=BROWSER_ACCEPT))
    assert not is_browser_visit(scope(path=MCP + "/", accept=BROWSER_ACCEPT))
