"""Who may see the bond list: a presented key's status (preview, ok, unauthorized, no subscription,
payment issue) and the 5-second rule between one key's calls."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

from accounts.models import ApiKey, Subscription
from accounts.services import api_key_authenticate
from bonds import statuses
from core.errors import ApplicationError


def bonds_interval_claim(*, key_id: int) -> bool:
    """Claim this key's call slot for BONDS_KEY_INTERVAL_SECONDS. `cache.add` is atomic (SET NX on
    Redis, a lock in local memory), so of concurrent calls with one key exactly one wins."""
    interval = settings.BONDS_KEY_INTERVAL_SECONDS
    if interval <= 0:
        return True
    return cache.add(f"bonds:interval:{key_id}", 1, timeout=interval)


SUBSCRIPTION_CACHE_SECONDS = 60
_NO_SUBSCRIPTION = "none"


def subscription_cache_key(account_id: int) -> str:
    return f"bonds:subscription:{account_id}"


# Each process also remembers a status for a second, which spares a keyed call the Redis round trip.
_LOCAL_SUBSCRIPTION_SECONDS = 1.0
_local_subscriptions: dict[int, tuple[float, str]] = {}


def subscription_forget(*, account_id: int) -> None:
    cache.delete(subscription_cache_key(account_id))
    _local_subscriptions.pop(account_id, None)


def subscription_memos_clear() -> None:
    """Forget this process's remembered statuses (the Redis or local cache is cleared apart)."""
    _local_subscriptions.clear()


def subscription_status(*, account_id: int) -> str | None:
    """The account's bonds subscription status (None: no subscription), cached. Every change through
    the ORM (subscription_set, the admin) forgets the cached value at once (signals in bonds.apps);
    other processes see it within a second with Redis, and the timeout bounds a change made by other
    means (or in another process with a per-process cache)."""
    now = time.monotonic()
    remembered = _local_subscriptions.get(account_id)
    if remembered is not None and now - remembered[0] < _LOCAL_SUBSCRIPTION_SECONDS:
        cached: str | None = remembered[1]
    else:
        cached = cache.get(subscription_cache_key(account_id))
        if cached is None:
            status = (
                Subscription.objects.filter(account_id=account_id, product=Subscription.Product.BONDS)
                .values_list("status", flat=True)
                .first()
            )
            cached = status or _NO_SUBSCRIPTION
            cache.set(subscription_cache_key(account_id), cached, SUBSCRIPTION_CACHE_SECONDS)
        _local_subscriptions[account_id] = (now, cached)
    return None if cached == _NO_SUBSCRIPTION else cached


def bonds_status_for_key(*, key: ApiKey) -> str:
    """The status of an authenticated key: its account's bonds subscription decides, then the
    interval. Only calls that would get bonds start the interval, so a wrong subscription is reported
    as such and not hidden behind `rate_limited`."""
    subscription = subscription_status(account_id=key.account_id)
    if subscription == Subscription.Status.PAST_DUE:
        return statuses.PAYMENT_ISSUE
    if subscription != Subscription.Status.ACTIVE:
        return statuses.NO_SUBSCRIPTION
    if not bonds_interval_claim(key_id=key.pk):
        return statuses.RATE_LIMITED
    return statuses.OK


def bonds_access_status(*, plaintext_key: str | None, client_ip: str) -> str:
    """The list status for a presented key (None: no key → preview). An unknown, expired or revoked
    key, or one used from outside its IP allow-list, is `unauthorized`."""
    if not plaintext_key:
        return statuses.PREVIEW
    try:
        key = api_key_authenticate(plaintext=plaintext_key, client_ip=client_ip)
    except ApplicationError:
        return statuses.UNAUTHORIZED
    return bonds_status_for_key(key=key)
