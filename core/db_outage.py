"""A read whose database connection was lost is run once more (the outermost middleware).

core.errors answers a request the database failed with 503 SERVICE_UNAVAILABLE and Retry-After, in the
interface's shape (DRF's handler for the API views, Django's 500 handler for the rest). For a GET or a
HEAD whose connection was lost (a restarted or failed-over PostgreSQL, a backend terminated, a pooler
that dropped it), this middleware drops the dead connection and runs the whole request once more on a
new one: reads are safe to repeat, and the caller then never sees the outage. Writes are not repeated
(the first attempt may have reached the database); nor is a read the database refused while its
connection stayed usable (a lock or statement timeout: repeating it would only double the load).
Why here and not in DRF's handler: docs/decisions/0012.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import connections
from django.http import HttpRequest, HttpResponse

from core.errors import database_connection_lost

logger = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD"})


def connections_closed() -> None:
    """Close this thread's connections (outside a transaction): the next query opens a new one."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


class DatabaseOutageRetry:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method in SAFE_METHODS and database_connection_lost(request):
            logger.warning("Retrying %s %s once on a new database connection", request.method, request.path)
            connections_closed()
            response = self.get_response(request)
        return response
