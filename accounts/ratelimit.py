"""Per-key rate limits from the account's plan, stricter per-endpoint limits, and their headers.

Counters live in Django's cache (Redis in production: `SET NX` then `INCR`, atomic), so every web process
shares them; each is a fixed window per (group, rate, subject) whose end is jittered per subject, the
scheme of django-ratelimit, whose keys these are. Several counters (and other keys, such as an API key's
token) are read in one round trip (core.cache_scripts.cache_count_and_get). The tightest counter of a
request is reported in X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix time); a
refused call raises DRF's Throttled, which core.errors renders as 429 with Retry-After.

While Redis is unreachable the cache counts per process (core/cache.py), so each limit is cut to
PONTE_RATELIMIT_DEGRADED_SHARE of itself: never unlimited, never an error, and N processes together
stay near the plan's limit. The headers report the limit actually applied.
"""

from __future__ import annotations

import hashlib
import math
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.models import ApiKey
from accounts.netaddr import client_address
from core.cache import cache_degraded
from core.cache_scripts import Counter, cache_count_and_get

_REQUEST_ATTR = "ponte_ratelimit"
_COUNTED_ATTR = "ponte_ratelimit_counted"
_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# A counter outlives its window by this much (django-ratelimit's EXPIRATION_FUDGE).
_EXPIRY_MARGIN = 5


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


@dataclass(frozen=True)
class Hit:
    """One call of `subject` in `group`, counted against `rate` ("5/m"); `increment=False` only reads."""

    group: str
    subject: str
    rate: str
    increment: bool = True


def _split_rate(rate: str) -> tuple[int, int]:
    """Parse a rate: "5/m" → (5, 60); "10/5m" → (10, 300)."""
    count, _, period = rate.partition("/")
    unit = period[-1:] if period[-1:] in _PERIODS else "s"
    multiple = period[:-1] if period[-1:] in _PERIODS else period
    return int(count), int(multiple or 1) * _PERIODS[unit]


def _window_end(subject: str, period: int, now: int) -> int:
    """The end of the subject's current window: windows of one period, shifted per subject so that not
    every counter resets at once."""
    if period == 1:
        return now
    end = now - (now % period) + (zlib.crc32(subject.encode()) % period)
    return end + period if end < now else end


def _counter(hit: Hit, limit: int, period: int, window_end: int) -> Counter:
    name = f"{hit.group}{limit}/{period}s{hit.subject}{window_end}"
    key = "rl:" + hashlib.sha256(name.encode()).hexdigest()
    return Counter(key, period + _EXPIRY_MARGIN, hit.increment)


def usages_hit(hits: Sequence[Hit], reads: Sequence[str] = ()) -> tuple[list[Usage | None], list[Any]]:
    """Count every hit and read every key of `reads` in one round trip to the cache. Returns a Usage per
    hit (None: rate limiting is off, RATELIMIT_ENABLE) and the values read (None: missing)."""
    enabled = settings.RATELIMIT_ENABLE
    degraded = bool(enabled and hits and cache_degraded())
    now = int(time.time())
    planned = []
    for hit in hits if enabled else ():
        limit, period = _split_rate(degraded_rate(hit.rate) if degraded else hit.rate)
        end = _window_end(hit.subject, period, now)
        planned.append((limit, end, _counter(hit, limit, period, end)))
    if not planned and not reads:
        return [None] * len(hits), []
    counts, values = cache_count_and_get([counter for _, _, counter in planned], reads)
    if not enabled:
        return [None] * len(hits), values
    usages: list[Usage | None] = [
        Usage(
            limit=limit,
            remaining=max(0, limit - count),
            reset=now + max(0, end - now),
            exceeded=count > limit,
        )
        for (limit, end, _), count in zip(planned, counts, strict=True)
    ]
    return usages, values


def usage_hit(
    request: HttpRequest | None, *, group: str, subject: str, rate: str, increment: bool = True
) -> Usage | None:
    """Count one call of `subject` in `group` against `rate` (e.g. "5/m"); None when disabled.
    With `increment=False` only read the counter (a limit on failures checks before it counts).
    `request` is not read (the subject names the caller); callers pass the one they serve."""
    return usages_hit([Hit(group, subject, rate, increment)])[0][0]


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


def endpoint_rate(view: APIView, method: str) -> str | None:
    """The stricter limit a view declares for `method` (`rate_limits = {"POST": "5/m"}`), if any."""
    return getattr(view, "rate_limits", {}).get(method) or None


def endpoint_group(view: APIView, method: str) -> str:
    return f"endpoint:{type(view).__module__}.{type(view).__qualname__}:{method}"


def counted_ahead(request: HttpRequest, hit: Hit, usage: Usage | None) -> None:
    """A call already counted with `hit` (accounts.admission, in the round trip that checked the key): the
    throttle of its group uses `usage` instead of counting again, if it would count the same subject
    against the same rate."""
    request.__dict__.setdefault(_COUNTED_ATTR, {})[hit.group] = (hit, usage, False)


class _CountingThrottle(BaseThrottle):
    def __init__(self) -> None:
        self._wait: float | None = None

    def wait(self) -> float | None:
        return self._wait

    def _count(self, request: Request, hit: Hit) -> bool:
        # A request is counted once per group: by accounts.admission ahead of the throttles when it
        # counted the same subject against the same rate, else here, however often the throttles run.
        counted: dict[str, tuple[Hit, Usage | None, bool]] = request._request.__dict__.setdefault(
            _COUNTED_ATTR, {}
        )
        ahead = counted.get(hit.group)
        if ahead is None or ahead[0] != hit:
            ahead = (hit, usage_hit(None, group=hit.group, subject=hit.subject, rate=hit.rate), False)
        if not ahead[2]:
            _record(request._request, ahead[1])
            counted[hit.group] = ahead = (hit, ahead[1], True)
        usage = ahead[1]
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
            self._count(request, Hit("plan", caller_subject(None, request), plan_rate(None)))
            raise
        key = key if isinstance(key, ApiKey) else None
        return self._count(request, Hit("plan", caller_subject(key, request), plan_rate(key)))


class EndpointRateThrottle(_CountingThrottle):
    """A stricter limit declared beside the view: `rate_limits = {"POST": "5/m"}`."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        rate = endpoint_rate(view, request.method)
        if not rate:
            return True
        key = request.auth if isinstance(request.auth, ApiKey) else None
        return self._count(
            request, Hit(endpoint_group(view, request.method), caller_subject(key, request), rate)
        )
