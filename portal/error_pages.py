"""The pages people read (the landing page, the account area) answer their errors with pages of their own,
in the visitor's language and the site's layout: a mistyped URL, a GET on a POST-only URL, a crash. Under
DEBUG Django would show its technical 404 (the URL list, in English) and Chrome a blank "HTTP ERROR 405"
(issue 45). The machine interfaces keep their JSON errors (config/urls.py, core/errors.py)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from core.locale import is_localized

PAGES = {
    404: (
        _("Not found"),
        _("This page does not exist, or it belongs to another account."),
    ),
    405: (
        _("Not available this way"),
        _("This address takes a form's button, not a visit: go back to the page and use its button."),
    ),
    500: (
        _("Something went wrong"),
        _("Ponte could not show this page. The error was logged; try again in a moment."),
    ),
}


def error_page(request: HttpRequest, status: int, *, safe: bool = False) -> HttpResponse:
    """The page for `status`. `safe`: rendered without reading the database or the session (a 500 may
    come from either being down), so as an anonymous visitor with no messages."""
    title, explanation = PAGES[status]
    context = {"status": status, "title": title, "explanation": explanation}
    if safe:
        context |= {"user": AnonymousUser(), "messages": []}
    response = render(request, "portal/error.html", context, status=status)
    response.error_page = True  # for PageErrorsMiddleware: already a page
    return response


class PageErrorsMiddleware:
    """On the pages, a 404 (an unknown URL, get_object_or_404) and the empty 405 of `require_POST` become
    the pages above. It looks at the response rather than the exception: under DEBUG an unknown URL never
    reaches a view, and Django's technical 404 is what comes back through here."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code not in (404, 405) or getattr(response, "error_page", False):
            return response
        json_answer = response.get("Content-Type", "").startswith("application/json")
        if json_answer or not is_localized(request.path_info):
            return response  # a machine interface, or a view's own JSON answer (the QR poll)
        page = error_page(request, response.status_code)
        if response.has_header("Allow"):
            page["Allow"] = response["Allow"]
        return page
