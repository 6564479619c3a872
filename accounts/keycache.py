"""Resolved API keys, kept in each process and checked against a token in the shared cache on every call.

A key is read from the database (with its account and plan, one query) once per process; after that a
keyed call costs no query, only one small GET on the shared cache (Redis). Each key prefix has a token
there: a random value set by the first process that reads the key, deleted whenever the key, its account
or its plan is saved or deleted (accounts.apps: at once, and again when the writing transaction
commits). A process uses its copy of a key only while the token it saw when it read the row is still the
token in the cache, so the next call in any process after a revocation, an expiry change, a deactivated
account or a plan change reads the row again: revocation takes effect at once everywhere.

Why a token deleted on write, not a version counter bumped on write: deletes missed during a Redis
outage are replayed when it answers again (core/cache.py), and a fresh token can never equal an old
one, whereas a counter lost with a Redis restart could come back to a value a stale copy holds. Without a
shared cache (the embedded default's per-process memory, or Redis unreachable and the cache on its
per-process fallback) tokens cannot reach other processes, so a copy is used for at most a second.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass

from django.core.cache import cache
from django.db import transaction

from accounts.models import ApiKey

# A token outlives any plausible gap between calls; when it lapses the next call reads the row again.
TOKEN_SECONDS = 24 * 3600
# Without a shared cache tokens reach no other process: a copy is trusted this long, then read again.
UNSHARED_SECONDS = 1.0
LOCAL_KEYS_MAX = 10_000


@dataclass(frozen=True)
class _Copy:
    key: ApiKey
    token: str | None  # None: read without a shared cache
    read_at: float


_copies: dict[str, _Copy] = {}
_lock = threading.Lock()


def token_cache_key(prefix: str) -> str:
    """The cache key of the prefix's token."""
    return f"accounts:key-token:{prefix}"


def _shared() -> bool:
    """Whether every process shares the cache now: Redis, answering (core.cache.RedisCache)."""
    return getattr(cache, "degraded", True) is False


def _current_token(prefix: str) -> str | None:
    """The prefix's token, set now if there is none (the first reader after a write sets it)."""
    token = cache.get(token_cache_key(prefix))
    if token is not None or not _shared():
        return token
    fresh = uuid.uuid4().hex
    if cache.add(token_cache_key(prefix), fresh, TOKEN_SECONDS):
        return fresh
    return cache.get(token_cache_key(prefix))  # another process set one first


def key_resolve(prefix: str) -> ApiKey | None:
    """The key with this prefix (account and plan joined), or None: from this process's copy while its
    token holds, else from the database. Unknown prefixes are never kept: nobody can fill the memory."""
    copy = _copies.get(prefix)
    now = time.monotonic()
    if not _shared():
        if copy is not None and now - copy.read_at < UNSHARED_SECONDS:
            return copy.key
        token = None
    else:
        # Read before the row: a write committed after this read deletes the token, so a copy of an
        # older row can never be kept under a token still current.
        token = _current_token(prefix)
        if copy is not None and token is not None and copy.token == token:
            return copy.key
    key = ApiKey.objects.select_related("account", "account__plan").filter(prefix=prefix).first()
    if key is None:
        _copies.pop(prefix, None)
        return None
    with _lock:
        if len(_copies) >= LOCAL_KEYS_MAX:
            _copies.clear()
        _copies[prefix] = _Copy(key, token, now)
    return key


def key_held(prefix: str) -> tuple[ApiKey, str | None] | None:
    """This process's copy of the key and the token it was read under, asking nothing: a caller that
    reads the token in a round trip of its own (accounts.admission) uses the copy only if the token is
    still that one. Without a shared cache, a copy younger than UNSHARED_SECONDS and no token to check.
    None: no copy usable so (key_resolve then decides)."""
    copy = _copies.get(prefix)
    if copy is None:
        return None
    if not _shared():
        return (copy.key, None) if time.monotonic() - copy.read_at < UNSHARED_SECONDS else None
    return (copy.key, copy.token) if copy.token is not None else None


def keys_forget(prefixes: list[str]) -> None:
    """Keys changed: every process reads them again at its next call (this one at once). Called from
    the writer's transaction, and again once it commits (a call racing the write may have read the row
    before it committed, under a token set after the first delete)."""
    for prefix in prefixes:
        _copies.pop(prefix, None)
    tokens = [token_cache_key(prefix) for prefix in prefixes]
    cache.delete_many(tokens)
    transaction.on_commit(lambda: cache.delete_many(tokens))
