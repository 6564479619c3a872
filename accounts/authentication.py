"""Resolve the caller's API key from the three accepted styles.

* `X-API-Key` header (messaging and gateway; header names are case-insensitive in HTTP and in Django);
* `Authorization: Bearer <key>` and `?key=<key>` (bonds and MCP).
"""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from accounts.models import ApiKey
from accounts.netaddr import client_address
from accounts.services import api_key_authenticate
from core.authorization import bearer_token
from core.errors import ApplicationError


def presented_header_key(request: HttpRequest) -> str | None:
    value = request.META.get("HTTP_X_API_KEY")
    return value.strip() if value and value.strip() else None


def bearer_or_query_key(*, authorization: str, query_key: str) -> str | None:
    """The key from an `Authorization: Bearer` value (preferred; the scheme in any case) or a `key`
    query parameter value."""
    return bearer_token(authorization) or query_key.strip() or None


def presented_bearer_or_query_key(request: HttpRequest) -> str | None:
    """The key from `Authorization: Bearer` (preferred) or the `key` query parameter."""
    return bearer_or_query_key(
        authorization=request.META.get("HTTP_AUTHORIZATION", ""), query_key=request.GET.get("key", "")
    )


HEADER_KEY_HINT = (
    "This interface reads the API key from the X-API-Key header; the key was sent in "
    "Authorization: Bearer (or ?key=), which only the bonds interface (/bonds/api/, /bonds/mcp) reads. "
    "Send it as X-API-Key: <key>."
)
BEARER_KEY_HINT = (
    "The key was sent in the X-API-Key header, which the bonds interface does not read: send it as "
    "Authorization: Bearer <key> or ?key=<key>. Without it this is the preview."
)


def header_key_hint(request: HttpRequest) -> str | None:
    """Why a /api or /gateway call without X-API-Key failed, when it carried a key the bonds way."""
    if presented_header_key(request) is None and presented_bearer_or_query_key(request) is not None:
        return HEADER_KEY_HINT
    return None


def bearer_key_hint(request: HttpRequest, presented: str | None) -> str | None:
    """Why a bonds call got the preview, when it carried a key the messaging way. `presented`: the
    request's bearer or query key, as the caller read it."""
    if presented is None and presented_header_key(request) is not None:
        return BEARER_KEY_HINT
    return None


_ADMITTED_ATTR = "ponte_admitted_key"


def key_admitted(request: HttpRequest, key: ApiKey) -> None:
    """The request's key is already checked (accounts.admission): authentication takes it as it is."""
    setattr(request, _ADMITTED_ATTR, key)


def authenticate_presented(request: HttpRequest, plaintext: str) -> ApiKey:
    return api_key_authenticate(plaintext=plaintext, client_ip=client_address(request))


class ApiKeyHeaderAuthentication(BaseAuthentication):
    """DRF authentication by `X-API-Key`. No header → anonymous (permissions then answer 401)."""

    def authenticate(self, request: Request) -> tuple[None, ApiKey] | None:
        admitted = getattr(request._request, _ADMITTED_ATTR, None)
        if admitted is not None:
            return None, admitted
        plaintext = presented_header_key(request._request)
        if plaintext is None:
            return None
        try:
            return None, authenticate_presented(request._request, plaintext)
        except ApplicationError as error:
            # DRF only treats its own exceptions as authentication failures (and then marks the
            # request anonymous), so translate; core.errors maps them back to Ponte's shapes.
            if error.status_code == 403:
                raise exceptions.PermissionDenied(error.message) from None
            raise exceptions.AuthenticationFailed(error.message) from None

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) to unauthenticated calls.
        return "X-API-Key"
