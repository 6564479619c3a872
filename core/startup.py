"""What `make run` checks around its start, so it never prints a banner for a server it does not own,
and refuses in one readable paragraph instead of a traceback a newcomer has to read from the bottom.

Before (`manage.py preflight`):
- the port: a web process that cannot bind dies with "Address already in use" after the banner was
  printed, and the demo keys then reach whatever else answers there (issue 45);
- the database: `migrate` on an unreachable PostgreSQL printed a long driver traceback.

After (`manage.py demo_keys --wait`): this run's own web process answers (its PONTE_RUN_TOKEN in
/healthz), and what /readyz reports as degraded.
"""

from __future__ import annotations

import errno
import json
import socket
import urllib.error
import urllib.request
from urllib.parse import urlsplit, urlunsplit

from django.db import connection
from django.db.utils import Error as DatabaseError


def port_problem(*, host: str, port: int) -> str | None:
    """Why `host:port` cannot be served, or None when it is free.

    Binding (not connecting) is the test: it also catches a server listening on 0.0.0.0 or one that does
    not answer HTTP. SO_REUSEADDR as uvicorn sets it, so a port in TIME_WAIT from the last run passes.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"Port {port} on {host} is already in use by another program, so Ponte cannot serve "
                    f"there (nothing was started). Stop that program, or run Ponte on another port: "
                    f"PONTE_PORT=8080 make run (PONTE_PORT, default 8000, is the port; PONTE_HOST the "
                    f"address)."
                )
            return (
                f"Ponte cannot listen on {host}:{port} ({exc.strerror or exc}); nothing was started. "
                f"Choose another address or port: PONTE_HOST=127.0.0.1 PONTE_PORT=8080 make run."
            )
    return None


def shown_url(url: str) -> str:
    """A database URL fit for a message: the password replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def database_problem(*, database_url: str) -> str | None:
    """Why the database cannot be reached, in one paragraph, or None when it answers."""
    try:
        connection.ensure_connection()
    except DatabaseError as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        where = f"at {shown_url(database_url)}" if database_url else "(the embedded SQLite file)"
        return (
            f"Ponte cannot reach its database {where}: {reason}. Start the database server (PostgreSQL: "
            f"`pg_ctlcluster <version> main start` or `systemctl start postgresql`), or check DATABASE_URL; "
            f"unset DATABASE_URL to use the embedded SQLite default, which needs nothing running."
        )
    finally:
        connection.close()
    return None


def _get_json(url: str) -> dict | None:
    try:
        with urllib.request.urlopen(url, timeout=3) as reply:  # noqa: S310 (our own http:// base URL)
            body = json.loads(reply.read())
    except (OSError, ValueError):  # refused, an HTTP error status, or not JSON: not Ponte's answer
        return None
    return body if isinstance(body, dict) else None


def own_web_answers(*, base: str, token: str) -> bool:
    """True once /healthz answers with this run's token (any 200 when no token was given)."""
    body = _get_json(f"{base}/healthz")
    return body is not None and body.get("status") == "ok" and (not token or body.get("run") == token)


def degraded_parts(*, base: str) -> dict[str, str]:
    """What /readyz says is not ok (cache, broker...), by check; {} when all is well."""
    try:
        with urllib.request.urlopen(f"{base}/readyz", timeout=10) as reply:  # noqa: S310 (as above)
            body = json.loads(reply.read())
    except urllib.error.HTTPError as exc:  # 503: the database is down
        body = json.loads(exc.read() or b"{}")
    except (OSError, ValueError) as exc:
        return {"readyz": f"no answer ({exc})"}
    checks = body.get("checks", {}) if isinstance(body, dict) else {}
    return {name: value for name, value in checks.items() if value != "ok"}
