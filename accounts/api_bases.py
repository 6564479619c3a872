"""The bases of every keyed REST view (messaging, gateway, webhooks, integrations)."""

from __future__ import annotations

from typing import Any

from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.admission import keyed_call_admit
from accounts.models import ApiKey
from accounts.permissions import require_session_allowed
from accounts.ratelimit import EndpointRateThrottle, PlanRateThrottle, ratelimit_headers

# Content negotiation's answers per (view class, Accept header, format suffix), for calls without a query
# string: parsing Accept and matching it against the renderers cost a keyed call a twentieth of its CPU,
# and a client sends the same header on every call. Bounded: past it, new headers are negotiated each time.
_NEGOTIATED: dict[tuple[type, str | None, str | None], tuple[type, str]] = {}
_NEGOTIATED_MAX = 256


class KeyedAPIView(APIView):
    """An APIView authenticated by `X-API-Key`, rate limited per key, with rate-limit headers on
    every reply (errors included).

    Subclasses set `permission_classes` (accounts.permissions) and, for a stricter per-endpoint
    limit, `rate_limits = {"POST": "5/m"}`.
    """

    throttle_classes = [PlanRateThrottle, EndpointRateThrottle]
    rate_limits: dict[str, str] = {}
    _throttles_checked = False

    def perform_authentication(self, request: Request) -> None:
        # A key this process holds is checked and counted in one round trip (accounts.admission).
        # Otherwise count the call before checking who makes it, so 401 and 403 replies carry the
        # headers too: the throttles read the key themselves (a key refused is counted against the
        # address).
        keyed_call_admit(request, self)
        self.check_throttles(request)
        super().perform_authentication(request)

    def check_throttles(self, request: Request) -> None:
        # Once per request, before authentication: DRF's own pass after the permissions would only find
        # every counter already counted, and refuse nothing the first pass let through.
        if self._throttles_checked:
            return
        self._throttles_checked = True
        super().check_throttles(request)

    def perform_content_negotiation(self, request: Request, force: bool = False) -> tuple[Any, str]:
        if request._request.META.get("QUERY_STRING"):  # a `?format=` would change the answer
            return super().perform_content_negotiation(request, force)
        memo = (type(self), request._request.META.get("HTTP_ACCEPT"), self.format_kwarg)
        known = _NEGOTIATED.get(memo)
        if known is not None:
            return known[0](), known[1]
        renderer, media_type = super().perform_content_negotiation(request, force)
        if not force and len(_NEGOTIATED) < _NEGOTIATED_MAX:
            _NEGOTIATED[memo] = (type(renderer), media_type)
        return renderer, media_type

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        for name, value in ratelimit_headers(request._request).items():
            response[name] = value
        return response

    @property
    def api_key(self) -> ApiKey:
        return self.request.auth

    def require_session(self, session_id: Any) -> None:
        """Refuse (403) a session this key is not allowed to touch."""
        require_session_allowed(self.api_key, session_id)


# A keyed view with a list: `self.filter_queryset(queryset)` applies the view's `filterset_class`
# through the filter backend (core.filters.FilterBackend), which refuses a wrong query parameter in the
# interface's error shape. No docstring of its own: a view without one is described in OpenAPI by
# KeyedAPIView's, as every other keyed view.
class KeyedListAPIView(KeyedAPIView, GenericAPIView):
    pass
