"""A keyed call's key check and rate limits in one round trip to the cache.

A call whose key this process holds (accounts.keycache) is checked here before DRF authenticates it: the
presented secret and the key's rules against the held copy (no I/O), then one round trip to Redis
(core.cache_scripts.cache_count_and_get) counts the plan's and the endpoint's limits under the key and
reads the key's token. While the token is the one the copy was read under, the call is authenticated with
the copy and its throttles take those counts (accounts.ratelimit.counted_ahead), so the rate-limit
headers come from the same reply. Anything else (no copy, a secret or address the copy refuses, a token
changed by a write) goes the usual way: DRF's authentication reads the key, then the throttles count, as
without this step. A refused call is therefore never counted against the key it names
(docs/decisions/0019).
"""

from __future__ import annotations

from django.utils import timezone
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.authentication import ApiKeyHeaderAuthentication, key_admitted, presented_header_key
from accounts.keycache import key_held, token_cache_key
from accounts.keys import prefix_of
from accounts.models import ApiKey
from accounts.netaddr import client_address
from accounts.ratelimit import (
    Hit,
    caller_subject,
    counted_ahead,
    endpoint_group,
    endpoint_rate,
    plan_rate,
    usages_hit,
)
from accounts.services import api_key_check, api_key_touch
from core.errors import ApplicationError


def _held_key(request: Request) -> tuple[ApiKey, str | None, str] | None:
    """The held copy of the presented key, its token (None: none to check) and its prefix, when the copy
    accepts the call; None when the usual path must decide."""
    if not any(isinstance(each, ApiKeyHeaderAuthentication) for each in request.authenticators):
        return None
    plaintext = presented_header_key(request._request)
    prefix = prefix_of(plaintext) if plaintext else None
    held = key_held(prefix) if prefix else None
    if held is None:
        return None
    try:
        api_key_check(
            key=held[0], plaintext=plaintext, client_ip=client_address(request._request), now=timezone.now()
        )
    except ApplicationError:
        return None
    return held[0], held[1], prefix


def keyed_call_admit(request: Request, view: APIView) -> None:
    """Authenticate and count a call by its held key in one round trip, when the copy still holds."""
    held = _held_key(request)
    if held is None:
        return
    key, token, prefix = held
    subject = caller_subject(key, request._request)
    hits = [Hit("plan", subject, plan_rate(key))]
    if rate := endpoint_rate(view, request.method):
        hits.append(Hit(endpoint_group(view, request.method), subject, rate))
    usages, values = usages_hit(hits, [token_cache_key(prefix)] if token is not None else [])
    for hit, usage in zip(hits, usages, strict=True):
        counted_ahead(request._request, hit, usage)
    if token is not None and values[0] != token:
        return  # the key, its account or its plan changed: authentication reads the row again
    api_key_touch(key=key, now=timezone.now())
    key_admitted(request._request, key)
