"""The SDK's Streamable HTTP app for the bond tools, behind a Host/Origin check that uses Django's
ALLOWED_HOSTS (and CSRF_TRUSTED_ORIGINS), plus the RFC 9728 protected-resource metadata.

`config/asgi.py` routes `MCP_PATH` (and `MCP_PATH/...`) and the well-known metadata paths here, and
sends the ASGI lifespan here too, which starts the SDK's session manager.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import split_domain_port, validate_host
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from bonds.mcp.server import mcp

MCP_PATH = "/bonds/mcp"
METADATA_PREFIX = "/.well-known/oauth-protected-resource"
METADATA_PATHS = (METADATA_PREFIX + MCP_PATH, METADATA_PREFIX)


def is_mcp_path(path: str) -> bool:
    return path == MCP_PATH or path.startswith(MCP_PATH + "/") or path in METADATA_PATHS


def is_browser_visit(scope: Scope) -> bool:
    """A person opening the MCP URL in a browser: a GET (or HEAD) asking for HTML, neither for an event
    stream nor in an MCP session. The SDK would answer it with a stream that never ends; the router
    sends it to Django's page on connecting a client instead (bonds/mcp/page.py)."""
    if scope["method"] not in ("GET", "HEAD") or scope["path"] != MCP_PATH:
        return False
    headers = Headers(scope=scope)
    accepted = {part.split(";", 1)[0].strip().lower() for part in headers.get("accept", "").split(",")}
    return "text/html" in accepted and "text/event-stream" not in accepted and "mcp-session-id" not in headers


def _allowed_hosts() -> list[str]:
    # Django's own fallback when ALLOWED_HOSTS is empty under DEBUG (HttpRequest.get_host).
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return [".localhost", "127.0.0.1", "[::1]"]
    return list(settings.ALLOWED_HOSTS)


def host_allowed(host: str) -> bool:
    """The Host header (host[:port]) against ALLOWED_HOSTS, with Django's matching rules
    (`.example.com` for subdomains, `*` for any)."""
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, _allowed_hosts())


def origin_allowed(origin: str | None) -> bool:
    """No Origin (not a browser), a trusted origin, or an origin whose host is an allowed host."""
    if not origin:
        return True
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    netloc = urlsplit(origin).netloc
    return bool(netloc) and host_allowed(netloc)


@mcp.custom_route(METADATA_PREFIX + MCP_PATH, methods=["GET"], include_in_schema=False)
async def protected_resource_metadata(request: Request) -> JSONResponse:
    """RFC 9728 metadata: the resource takes Ponte API keys as Bearer tokens in the header. Keys are
    issued in the account area, not by an OAuth authorization server, so none is listed."""
    base = str(request.base_url).rstrip("/")
    return JSONResponse(
        {
            "resource": base + MCP_PATH,
            "resource_name": "Ponte bonds",
            "bearer_methods_supported": ["header"],
            "resource_documentation": base + "/docs/",
        },
        headers={"Cache-Control": "public, max-age=3600"},
    )


@mcp.custom_route(METADATA_PREFIX, methods=["GET"], include_in_schema=False)
async def protected_resource_metadata_root(request: Request) -> JSONResponse:
    return await protected_resource_metadata(request)


def build_sdk_app() -> ASGIApp:
    """A fresh SDK app (and session manager). The Host/Origin check happens in `McpApp` (Django's
    rules), so the SDK's own DNS-rebinding check, which only knows exact hosts and `host:*`, is off;
    the SDK still insists on a JSON Content-Type."""
    return mcp.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


class McpApp:
    """The ASGI app the router sends MCP paths and the lifespan to.

    The SDK's session manager can run once per instance, so each lifespan (each server start, e.g.
    several test servers in one process) builds a fresh SDK app and runs its manager.
    """

    def __init__(self) -> None:
        self.sdk_app: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            self.sdk_app = build_sdk_app()
            await self.sdk_app(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        headers = Headers(scope=scope)
        if not host_allowed(headers.get("host", "")):
            response = PlainTextResponse("Invalid Host header", status_code=421)
        elif not origin_allowed(headers.get("origin")):
            response = PlainTextResponse("Invalid Origin header", status_code=403)
        elif self.sdk_app is None:
            response = PlainTextResponse(
                "The MCP server is not started: serve config.asgi:application with the ASGI lifespan on.",
                status_code=503,
            )
        else:
            await self.sdk_app(scope, receive, send)
            return
        await response(scope, receive, send)


mcp_app = McpApp()
