"""The web process's one entry point, served by uvicorn (`make run`, Procfile): a small ASGI router.

- `/bonds/mcp` (the bonds MCP server, Streamable HTTP) and its well-known metadata paths
  go to the MCP SDK's app, natively on the event loop, and so does the ASGI lifespan, which starts the
  SDK's session manager (Django does not speak lifespan); the lifespan also starts the thread pool.
  A browser opening `/bonds/mcp` (it asks for HTML) gets Django's page on connecting a client instead.
- Every other HTTP request goes to Django's WSGI handler on a fixed pool of PONTE_WEB_THREADS threads
  (core/wsgi_bridge.py): database connections stay one per thread, so a web process never holds
  more than PONTE_WEB_THREADS of them, whatever the number of clients.
  The pool is also the event loop's default executor, where the MCP tools run their ORM work.
- WebSocket connections to `/ws` go to the live event socket (webhooks/live/asgi.py),
  natively on the loop, its database work on the same pool; other WebSocket paths are refused.
- Around it all, core/observe.py: the request id (`X-Request-Id`), request metrics, one log line each.
"""

import asyncio
import logging
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_wsgi = get_wsgi_application()

# Imported after Django is set up: the tools use the ORM.
from django.conf import settings  # noqa: E402

from bonds.mcp.asgi import is_browser_visit, is_mcp_path, mcp_app  # noqa: E402
from core import metrics  # noqa: E402
from core.logfilters import redact_handlers  # noqa: E402
from core.observe import Observed  # noqa: E402
from core.wsgi_bridge import WsgiBridge  # noqa: E402
from webhooks.live.asgi import is_live_path, live_socket  # noqa: E402

# uvicorn set up its own handlers before it imported Ponte (unless PONTE_LOG_FORMAT=json hands its lines to
# Ponte's handler): they get the redaction too, since uvicorn logs each WebSocket upgrade with its query
# string, where browsers put their key (apiKey).
for _name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
    redact_handlers(logging.getLogger(_name))

metrics.process_started()

django_application = WsgiBridge(
    django_wsgi,
    threads=settings.PONTE_WEB_THREADS,
    # Read when a request arrives, so tests overriding the setting see their value.
    body_limit=lambda: settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
)


async def router(scope, receive, send):
    kind = scope["type"]
    if kind == "http":
        if is_mcp_path(scope["path"]) and not is_browser_visit(scope):
            await mcp_app(scope, receive, send)
        else:
            await django_application(scope, receive, send)
    elif kind == "lifespan":
        django_application.start(asyncio.get_running_loop())
        await mcp_app(scope, receive, send)
    elif kind == "websocket":
        if is_live_path(scope["path"]):
            await live_socket(scope, receive, send)
        else:
            # Closing before accepting makes the server answer the handshake with 403.
            await send({"type": "websocket.close", "code": 1008})


application = Observed(router)
