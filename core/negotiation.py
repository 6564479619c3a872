"""Content negotiation for views whose `?format=` is their own query parameter."""

from __future__ import annotations

from typing import Any

from rest_framework.negotiation import BaseContentNegotiation, DefaultContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class QueryFormatIsOurs(BaseContentNegotiation):
    """`?format=` is the view's own parameter (the QR code's base64|raw|image, the bond list's
    json|csv), not DRF's renderer override: the view's first renderer, whatever the query or the Accept
    header say. The view writes any other content type itself."""

    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        return renderers[0], renderers[0].media_type

    def select_parser(self, request: Request, parsers: list[BaseParser]) -> Any:
        return DefaultContentNegotiation().select_parser(request, parsers)
