"""Apps bench/web.py serves next to Ponte's own entry point (config.asgi:application).

- `raw`: a trivial ASGI app returning 2 KB, the ceiling of the server itself;
- `django_asgi`: the same Django project behind Django's own ASGI handler, the web tier before
  issue 13 (a new thread context, and so a new database connection, per request).
"""

from __future__ import annotations

import os

BODY = b"x" * 2048


async def raw(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": BODY})


def _django_asgi():
    from django.core.asgi import get_asgi_application

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    return get_asgi_application()


django_asgi = _django_asgi() if os.environ.get("BENCH_WEB_DJANGO_ASGI") else None
