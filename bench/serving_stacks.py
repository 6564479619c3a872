"""Issue 44 item 4: the serving stack as a lever. The same Django project under each candidate server,
in one run, alternating short slices so the machine's load hits all alike (bench/web.py's machinery):

- `ponte`: uvicorn serving config.asgi, Django on the WSGI bridge's thread pool (the Procfile's today);
- `granian-asgi`: granian serving the same config.asgi (bridge inside);
- `granian-wsgi`: granian serving config.wsgi on its own blocking threads (PONTE_WEB_THREADS of them);
- `gunicorn-sync` / `gunicorn-gthread`: gunicorn serving config.wsgi, one request at a time per process /
  PONTE_WEB_THREADS threads.

It prints which of them serve `/ws` and `/bonds/mcp` (only an ASGI server of config.asgi does), the
requests/s of `/healthz` and `GET /api/me` (PostgreSQL + Redis when DATABASE_URL and REDIS_URL say so),
each server's rate against `ponte`'s, and each server's CPU per request.

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/serving_stacks.py \\
        [--seconds 3] [--rounds 2] [--clients 4] [--processes 1] [--servers ...] [--cases ...]
"""

from __future__ import annotations

import sys

from web import main  # bench/ is sys.path[0]

STACKS = "ponte,granian-asgi,granian-wsgi,gunicorn-sync,gunicorn-gthread"

if __name__ == "__main__":
    # Defaults first: an option given on the command line comes later and wins.
    sys.argv[1:1] = ["--servers", STACKS, "--cases", "/healthz,/api/me"]
    main()
