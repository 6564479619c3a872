"""Which language a request is answered in.

The pages people read (the landing page, the account area, its language switch) follow Django's
LocaleMiddleware: the switch's cookie, else Accept-Language, else LANGUAGE_CODE. Everything else is a
machine interface (`/api/`, `/gateway/`, `/bonds/`, `/instances/`, `/integrations/`, `/channels/`, the
schema, health and metrics) or staff's admin: it always answers in English, so a client's error codes
and messages never depend on its Accept-Language (DRF and Django would otherwise translate their own).
URLs carry no language prefix (no i18n_patterns), so routing is the same in every language.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

# Machine interfaces and the admin speak this, whatever LANGUAGE_CODE says.
INTERFACE_LANGUAGE = "en"
LOCALIZED_PREFIXES = ("/account/", "/i18n/")


def is_localized(path: str) -> bool:
    """True for the pages that follow the visitor's language."""
    return path == "/" or path.startswith(LOCALIZED_PREFIXES)


class PageLocaleMiddleware(LocaleMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        if is_localized(request.path_info):
            super().process_request(request)
            return
        # Explicitly, so no language a previous request activated in this thread carries over.
        translation.activate(INTERFACE_LANGUAGE)
        request.LANGUAGE_CODE = INTERFACE_LANGUAGE

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        # Machine interfaces get no Content-Language or Vary: Accept-Language: their replies do not vary.
        if is_localized(request.path_info):
            return super().process_response(request, response)
        return response
