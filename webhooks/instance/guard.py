"""Guessing instance keys is throttled: the instance interface's credential is the key in the path, so
failed lookups are counted per client address (the rate-limit counters of accounts.ratelimit, shared by
every web process), and an address past `PONTE_INSTANCE_KEY_FAILURE_RATE` is answered 429 with
Retry-After until its window ends. The check comes before the key is looked at, so a blocked address
cannot tell a right guess from a wrong one; keys found are never counted.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.ratelimit import caller_subject, usage_hit
from core.errors import RateLimited
from messaging.models import Session
from webhooks.errors import InstanceNotFound
from webhooks.instance import services as instance

GROUP = "instance-key-failures"
TOO_MANY_FAILURES = "Too many unknown instance keys from this address; wait before retrying."


def _rate() -> str:
    return settings.PONTE_INSTANCE_KEY_FAILURE_RATE


class InstanceKeyGuessThrottle(BaseThrottle):
    """Refuses an address whose failed lookups are over the limit in the current window."""

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request: Request, view: APIView) -> bool:
        usage = usage_hit(
            request._request,
            group=GROUP,
            subject=caller_subject(None, request),
            rate=_rate(),
            increment=False,
        )
        if usage is not None and usage.exceeded:
            self._wait = usage.retry_after
            return False
        return True

    def wait(self) -> float | None:
        return self._wait


def instance_session_for(request: Request, instance_key: str) -> Session:
    """The session of `instance_key` (instance.instance_session_get); a miss counts against the
    caller's address and answers 429 instead of 404 once the limit is passed."""
    try:
        return instance.instance_session_get(instance_key=instance_key)
    except InstanceNotFound:
        usage = usage_hit(request._request, group=GROUP, subject=caller_subject(None, request), rate=_rate())
        if usage is not None and usage.exceeded:
            raise RateLimited(TOO_MANY_FAILURES, retry_after=usage.retry_after) from None
        raise
