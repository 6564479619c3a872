"""ASGI entry point served by uvicorn (`make run`, Procfile): a small router in front of Django.

`/bonds/mcp` (the bonds MCP server, Streamable HTTP, docs/mcp.md) and its well-known metadata paths
go to the MCP SDK's app, and so does the ASGI lifespan, which starts the SDK's session manager
(Django does not speak lifespan). Every other request goes to Django.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_application = get_asgi_application()

# Imported after Django is set up: the tools use the ORM.
from bonds.mcp.asgi import is_mcp_path, mcp_app  # noqa: E402


async def application(scope, receive, send):
    if scope["type"] == "lifespan" or (scope["type"] == "http" and is_mcp_path(scope.get("path", ""))):
        await mcp_app(scope, receive, send)
    else:
        await django_application(scope, receive, send)
