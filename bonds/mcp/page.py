"""What a browser gets at the MCP URL: a short page on connecting an MCP client, not the SDK's endless
event stream. config/asgi.py's router sends a browser's visit (`is_browser_visit` in bonds/mcp/asgi.py)
here, through Django, so the page has the site's header and the signed-in user; MCP clients still reach
the SDK."""

from __future__ import annotations

import json

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

SERVER_NAME = "ponte-bonds"
KEY_PLACEHOLDER = "ponte_xxxxxxxx_your_key_here"


def client_config(mcp_url: str) -> str:
    """The `.mcp.json` entry for this server's URL (Claude Code, Cursor, Windsurf...)."""
    entry = {"type": "http", "url": mcp_url, "headers": {"Authorization": f"Bearer {KEY_PLACEHOLDER}"}}
    return json.dumps({"mcpServers": {SERVER_NAME: entry}}, indent=2)


@transaction.non_atomic_requests  # no database work worth a transaction
@require_safe
def mcp_connect_page(request: HttpRequest) -> HttpResponse:
    mcp_url = request.build_absolute_uri(request.path)
    context = {
        "mcp_url": mcp_url,
        "config": client_config(mcp_url),
        "command": (
            f"claude mcp add --transport http {SERVER_NAME} {mcp_url} "
            '--header "Authorization: Bearer $PONTE_API_KEY"'
        ),
        "preview_limit": settings.BONDS_PREVIEW_LIMIT,
        "key_interval": settings.BONDS_KEY_INTERVAL_SECONDS,
    }
    return render(request, "bonds/mcp.html", context)
