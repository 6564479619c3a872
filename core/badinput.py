"""Refusing bad input before it reaches a view: oversized bodies, too-deep JSON, NUL characters and
lone surrogates (which PostgreSQL and UTF-8 cannot store), out-of-range counts.

Each refusal is an ApplicationError, so it is rendered in the shape of the request's interface (bonds:
HTTP 200 with the outcome in `response.status`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from core.errors import BadRequest, PayloadTooLarge, json_error_response

# NUL and the UTF-16 surrogate halves: valid in a JSON string ("\u0000", "\ud800") and in a Python
# str, but PostgreSQL text cannot hold NUL and a lone surrogate cannot be encoded as UTF-8.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_text(value: str) -> bool:
    return _UNSTORABLE.search(value) is not None


def json_problem(data: Any, max_depth: int) -> str | None:
    """Why a parsed JSON value is refused (nesting deeper than `max_depth`, or a string, key or
    value, holding NUL or a lone surrogate), or None. Iterative, so any depth is safe to walk."""
    stack: list[tuple[Any, int, str]] = [(data, 1, "body")]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, dict | list):
            if depth > max_depth:
                return f"JSON nested deeper than {max_depth} levels (at {where})."
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                name = f"{where}.{key}" if isinstance(value, dict) else f"{where}[{key}]"
                if isinstance(key, str) and unstorable_text(key):
                    return f"{where}: a field name holds a NUL character or a lone surrogate."
                stack.append((item, depth + 1, name))
        elif isinstance(value, str) and unstorable_text(value):
            return f"{where}: NUL characters and lone surrogates (\\u0000, \\ud800-\\udfff) are not accepted."
    return None


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing (400) what would otherwise crash a view or the database."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict | None = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            # The C decoder gives up on nesting near the interpreter's recursion limit.
            raise ParseError(f"JSON nested deeper than {settings.PONTE_MAX_JSON_DEPTH} levels.") from None
        problem = json_problem(data, settings.PONTE_MAX_JSON_DEPTH)
        if problem:
            raise ParseError(problem)
        return data


# Mounts whose query values are checked here. Bonds ignores odd filter values (its filters drop
# values outside their lists).
_QUERY_CHECKED = ("/api/", "/gateway/", "/instances/")


class BadInputMiddleware:
    """First in the chain: refuses a declared body over PONTE_MAX_BODY_BYTES (413) before anything
    reads it, and NUL characters in the path or query (400) of the keyed interfaces."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        error = self.problem(request)
        if error is not None:
            return json_error_response(request, error)
        return self.get_response(request)

    @staticmethod
    def problem(request: HttpRequest) -> BadRequest | PayloadTooLarge | None:
        raw_length = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(raw_length)
        except ValueError:
            return BadRequest(f"Content-Length {raw_length!r} is not a number.")
        limit = settings.PONTE_MAX_BODY_BYTES
        if length > limit:
            return PayloadTooLarge(f"The request body has {length} bytes; at most {limit} are accepted.")
        # Only the keyed API mounts: the admin reopens a list with a bad filter flagged (QueryStringGuard).
        if request.path.startswith(_QUERY_CHECKED):
            if "\x00" in request.path:
                return BadRequest("The path holds a NUL character.")
            for name, values in request.GET.lists():
                if unstorable_text(name) or any(unstorable_text(value) for value in values):
                    return BadRequest(f"Query parameter {name!r} holds a NUL character.")
        return None
