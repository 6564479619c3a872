"""`/bonds/` itself: the bond list's mount point, not an operation. A browser gets a short page pointing
to what a person can open (the list, the API docs, the MCP page); a program keeps the interface's JSON
`not_found` in the bond envelope (HTTP 200, as every bond reply: docs/bonds.md)."""

from __future__ import annotations

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.errors import NotFound, json_error_response


def wants_a_page(request: HttpRequest) -> bool:
    """A browser's visit: a GET or HEAD whose Accept names HTML (curl and the clients send */* or JSON)."""
    accept = request.headers.get("Accept", "")
    accepted = {part.split(";", 1)[0].strip().lower() for part in accept.split(",")}
    return request.method in ("GET", "HEAD") and "text/html" in accepted


@transaction.non_atomic_requests  # no database work worth a transaction
def bonds_index(request: HttpRequest) -> HttpResponse:
    if wants_a_page(request):
        return render(request, "bonds/index.html")
    return json_error_response(request, NotFound(f"No route {request.method} {request.path}."))
