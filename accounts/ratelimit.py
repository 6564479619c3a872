"""Per-key rate limits from the account's plan, stricter per-endpoint limits, and their headers.

Counters live in Django's cache through django-ratelimit (Redis in production, atomic INCR), so every
web process shares them. The tightest counter of a request is reported in X-RateLimit-Limit,
X-RateLimit-Remaining and X-RateLimit-Reset (Unix time); a refused call raises DRF's Throttled, which
core.errors renders as 429 with Retry-After.

While Redis is unreachable the cache counts per process (core/cache.py), so each limit is cut to
PONTE_RATELIMIT_DEGRADED_SHARE of itself: never unlimited, never an error, and N processes together
stay near the plan's limit. The headers report the limit actually applied.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import get_usage
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.models import ApiKey
from accounts.netaddr import client_address
from core.cache import cache_degraded

_REQUEST_ATTR = "ponte_ratelimit"
_COUNTED_ATTR = "ponte_ratelimit_counted"


@dataclass(frozen=True)
class Usage:
    limit: int
    remaining: int
    reset: int  # Unix time when the window resets
    exceeded: bool

    @property
    def retry_after(self) -> int:
        return max(1, self.reset - int(time.time()))

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }


def degraded_rate(rate: str) -> str:
    """`rate` cut to the share one process may allow on its own counters ("60/m" → "15/m"), at least 1."""
    count, _, period = rate.partition("/")
    share = float(settings.PONTE_RATELIMIT_DEGRADED_SHARE)
    return f"{max(1, math.floor(int(count) * share))}/{period}"


def usage_hit(
    request: HttpRequest, *, group: str, subject: str, rate: str, increment: bool = True
) -> Usage | None:
    """Count one call of `subject` in `group` against `rate` (e.g. "5/m"); None when disabled.
    With `increment=False` only read the counter (a limit on failures checks before it counts)."""
    if cache_degraded():
        rate = degraded_rate(rate)
    raw = get_usage(
        request, group=group, key=lambda _group, _request: subject, rate=rate, increment=increment
    )
    if raw is None:
        return None
    now = int(time.time())
    return Usage(
        limit=raw["limit"],
        remaining=max(0, raw["limit"] - raw["count"]),
        reset=now + max(0, raw["time_left"]),
        exceeded=raw["should_limit"],
    )


def _record(request: HttpRequest, usage: Usage | None) -> None:
    """Keep the tightest counter of the request for the response headers."""
    if usage is None:
        return
    current: Usage | None = getattr(request, _REQUEST_ATTR, None)
    if current is None or usage.exceeded or (not current.exceeded and usage.remaining < current.remaining):
        setattr(request, _REQUEST_ATTR, usage)


def ratelimit_headers(request: HttpRequest) -> dict[str, str]:
    usage: Usage | None = getattr(request, _REQUEST_ATTR, None)
    return usage.headers() if usage else {}


def caller_subject(key: ApiKey | None, request: HttpRequest) -> str:
    return f"key:{key.pk}" if key is not None else f"ip:{client_address(request)}"


def plan_rate(key: ApiKey | None) -> str:
    if key is None:
        return f"{settings.PONTE_ANONYMOUS_REQUESTS_PER_MINUTE}/m"
    per_minute = key.account.plan.requests_per_minute
    return f"{per_minute or settings.PONTE_UNLIMITED_REQUESTS_PER_MINUTE}/m"


class _CountingThrottle(BaseThrottle):
    def __init__(self) -> None:
        self._wait: float | None = None

    def wait(self) -> float | None:
        return self._wait

    def _count(self, request: Request, *, group: str, subject: str, rate: str) -> bool:
        # A request is counted once per group however often its throttles are checked (a keyed view
        # checks them before authenticating, and DRF again after the permissions).
        counted: dict[str, Usage | None] = request._request.__dict__.setdefault(_COUNTED_ATTR, {})
        if group not in counted:
            counted[group] = usage_hit(request._request, group=group, subject=subject, rate=rate)
            _record(request._request, counted[group])
        usage = counted[group]
        if usage is not None and usage.exceeded:
            self._wait = usage.retry_after
            return False
        return True


class PlanRateThrottle(_CountingThrottle):
    """Requests per minute per key from the plan; per client address when there is no valid key.

    Runs before authentication completes, so even 401 and 403 replies carry the headers: a failed
    authentication is counted against the address, then re-raised.
    """

    def allow_request(self, request: Request, view: APIView) -> bool:
        try:
            key = request.auth
        except APIException:
            self._count(request, group="plan", subject=caller_subject(None, request), rate=plan_rate(None))
            raise
        key = key if isinstance(key, ApiKey) else None
        return self._count(request, group="plan", subject=caller_subject(key, request), rate=plan_rate(key))


class EndpointRateThrottle(_CountingThrottle):
    """A stricter limit declared beside the view: `rate_limits = {"POST": "5/m"}`."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        rate = getattr(view, "rate_limits", {}).get(request.method)
        if not rate:
            return True
        key = request.auth if isinstance(request.auth, ApiKey) else None
        group = f"endpoint:{type(view).__module__}.{type(view).__qualname__}:{request.method}"
        return self._count(request, group=group, subject=caller_subject(key, request), rate=rate)
