"""The nginx site's settings that the live proxy test cannot time (docs/deploy/nginx-ponte.conf): the MCP
stream and the WebSocket are never buffered and outlive a quiet hour, and the headers Ponte reads are set
once for every location (a location setting any header of its own would inherit none of them)."""

from __future__ import annotations

import re
from pathlib import Path

SITE = (Path(__file__).resolve().parents[2] / "docs" / "deploy" / "nginx-ponte.conf").read_text()


def location(path: str) -> str:
    found = re.search(r"location " + re.escape(path) + r" \{(.*?)\n    \}", SITE, re.S)
    assert found, f"no location {path}"
    return found.group(1)


def test_the_mcp_stream_and_the_websocket_are_unbuffered_with_hour_long_timeouts():
    for path in ("/bonds/mcp", "/ws"):
        block = location(path)
        assert "proxy_buffering off;" in block
        assert "proxy_read_timeout 3600s;" in block
        assert "proxy_send_timeout 3600s;" in block
    assert "proxy_request_buffering off;" in location("/bonds/mcp")


def test_no_location_sets_headers_of_its_own_so_all_inherit_the_forwarding_headers():
    for path in ("/", "/bonds/mcp", "/ws"):
        assert "proxy_set_header" not in location(path)
    for header in ("X-Forwarded-For $remote_addr", "X-Forwarded-Proto $scheme", "Upgrade $http_upgrade"):
        assert f"proxy_set_header {header};" in SITE
