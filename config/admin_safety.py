"""Guards shared by the admin screens of every app."""

from __future__ import annotations

from django.contrib.admin.views.main import ERROR_FLAG
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect


def has_nul(request: HttpRequest) -> bool:
    """A NUL in the query string: PostgreSQL refuses it in a text comparison (a 500 from a filter)."""
    return any("\x00" in value for values in request.GET.lists() for value in values[1])


def bad_lookup_redirect(path: str) -> HttpResponse:
    """What Django's change list answers to lookups it cannot use: the list again, flagged with ?e=1."""
    return HttpResponseRedirect(f"{path}?{ERROR_FLAG}=1")


class QueryStringGuard:
    """Mixed into a ModelAdmin: a change list asked for with a NUL in a filter is treated like any
    other unusable lookup (Django checks types, not NULs, and the database then fails)."""

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        if has_nul(request):
            return bad_lookup_redirect(request.path)
        return super().changelist_view(request, extra_context)  # type: ignore[misc]
