"""Django's Redis cache, with one Redis client and connection pool per process, surviving a Redis outage.

Django's backend builds a new `redis.Redis` (and its table of response callbacks) for every cache
operation, a cost paid on every API key check, bond request and webhook hint. A `redis.Redis` is safe to
share between threads (it takes connections from its pool per command), so one per pool is kept. And
Django builds one cache backend per thread *or async context*: the web process runs each request in a
copy of the event loop's context (core/wsgi_bridge.py), so every request would get a new backend, hence
a new pool and a new TCP connection to Redis. The clients, and so their pools, are therefore shared by
every backend instance of one location and options in the process (docs/decisions/0006).

While Redis is unreachable every operation goes to a per-process local-memory cache instead, behind a
circuit breaker so a request does not wait on a dead server: reads miss (callers read the database), values
are kept for a few seconds only, and atomic claims and counters (`add`, `incr`: rate limits, the bonds
5-second rule, send slots) hold per process. Deletes made meanwhile (a revoked key, a bond refresh) are
replayed on Redis once it answers again, so a stale entry does not outlive the outage.

`cache_count_and_get` (core/cache_scripts.py) counts and reads several keys in one round trip (one Lua
script): a keyed call's rate limits and its key token (accounts.admission) cost one trip to Redis, not
four (docs/decisions/0019, 0030). `cache_list_push` and `cache_list_reader` carry the job system's
wake-ups (jobs.wakeups, decision 0038): a list in the same Redis, pushed through the breaker, read with a
blocking pop; `cache_add_then_push` pushes only when it raises a flag, in one round trip (a target's hint
flag and its wake-up, decision 0039). The scripts, and the same operations on the fallback, are
core/cache_scripts.py.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import redis
from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.utils.functional import cached_property

from core.breaker import Breaker
from core.cache_scripts import (
    ADD_FIRST_SCRIPT,
    ADD_THEN_PUSH_SCRIPT,
    COUNT_AND_GET_SCRIPT,
    Added,
    Counter,
    Script,
    add_first_on,
    count_and_get_on,
)

logger = logging.getLogger(__name__)

# What "Redis is not there" looks like (refused, reset, timed out, loading after a restart).
UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)
# Deletes remembered for replay; past this many the oldest are dropped (and the loss is logged).
_PENDING_DELETES_MAX = 10_000


class PooledRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}
        self._local = threading.local()

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            # A race here builds two clients for one pool; both work, one is kept.
            client = self._clients[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client

    def count_and_get(self, counters: Sequence[tuple[str, int, bool]], reads: Sequence[str]) -> list[Any]:
        """One script call (one round trip, one command to pack and one reply to parse): per counter
        `SET key 0 EX seconds NX` then `INCR` (or `GET`), then a `GET` per read. `counters` and `reads`
        hold made keys; returns the counts, then the values."""
        keys = [key for key, _, _ in counters] + list(reads)
        args = [len(counters)]
        args += [seconds for _, seconds, _ in counters]
        args += [int(increment) for _, _, increment in counters]
        replies = self._run_script(COUNT_AND_GET_SCRIPT, keys, args)
        counts = [int(reply or 0) for reply in replies[: len(counters)]]
        values = replies[len(counters) :]
        return [*counts, *(None if value is None else self._serializer.loads(value) for value in values)]

    def add_first(self, keys: Sequence[str], seconds: int, reads: Sequence[str]) -> Added:
        """One script call: `SET key 1 EX seconds NX` on each of `keys` (made keys) until one is set,
        then a `GET` per read. The position of the key set (None: none was free) and the values."""
        replies = self._run_script(ADD_FIRST_SCRIPT, [*keys, *reads], [len(keys), 1, seconds])
        values = [None if value is None else self._serializer.loads(value) for value in replies[1:]]
        return (int(replies[0]) - 1 if replies[0] else None), values

    def add_then_push(self, flag: str, seconds: int, key: str, value: str) -> bool:
        """One script call: raise `flag` (a made key, Django's raw integer 1, for `seconds`) unless it is
        up, and only then push `value` on the list `key`. Whether it pushed."""
        return bool(self._run_script(ADD_THEN_PUSH_SCRIPT, [flag, key], [1, seconds, value]))

    def _run_script(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """`script` by its digest, loaded with `EVAL` when this Redis does not know it yet (a
        restart, a flush), on this thread's own connection: taking one from the pool and giving it back
        (a lock and a health-check poll each) cost as much client CPU as the call itself. A connection
        that fails is dropped and the call made once more on a fresh one (the server closed it
        meanwhile), as redis-py does for pooled commands."""
        for attempt in (1, 2):
            connection = self._script_connection()
            try:
                try:
                    connection.send_command("EVALSHA", script.sha, len(keys), *keys, *args)
                    return connection.read_response()
                except redis.exceptions.NoScriptError:
                    connection.send_command("EVAL", script.text, len(keys), *keys, *args)
                    return connection.read_response()
            except UNREACHABLE:
                connection.disconnect()  # reconnects on its next command
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # the loop returns or raises

    def _script_connection(self) -> Any:
        """This thread's connection for scripts, made by the write pool (its address and options); a new
        one in a forked child, which must not share its parent's socket."""
        held = getattr(self._local, "connection", None)
        if held is None or held[0] != os.getpid():
            pool = self.get_client(write=True).connection_pool
            held = self._local.connection = (os.getpid(), pool.connection_class(**pool.connection_kwargs))
        return held[1]


_clients: dict[tuple[tuple[str, ...], str], PooledRedisCacheClient] = {}
_clients_lock = threading.Lock()


def _shared_client(servers: list[str], options: dict[str, Any]) -> PooledRedisCacheClient:
    """The process's client (and connection pools) for these servers and options."""
    key = (tuple(servers), repr(sorted(options.items())))
    client = _clients.get(key)
    if client is None:
        with _clients_lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = PooledRedisCacheClient(servers, **options)
    return client


@dataclass
class _Outage:
    """What every backend instance of one Redis location shares in a process (Django builds one backend
    per thread or async context): the breaker, the pending deletes; the fallback's storage is shared
    through its name."""

    breaker: Breaker
    pending_deletes: dict[str, None] = field(default_factory=dict)  # Redis keys, in order
    lock: threading.Lock = field(default_factory=threading.Lock)


_outages: dict[str, _Outage] = {}
_outages_lock = threading.Lock()


def _outage_for(location: str) -> _Outage:
    with _outages_lock:
        outage = _outages.get(location)
        if outage is None:
            breaker = Breaker("Redis cache")
            outage = _outages[location] = _Outage(breaker)
        return outage


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._outage = _outage_for(server)
        self.breaker = self._outage.breaker
        self._fallback = LocMemCache(
            f"ponte-fallback:{server}",
            {
                "KEY_PREFIX": params.get("KEY_PREFIX", ""),
                "VERSION": params.get("VERSION", 1),
                "TIMEOUT": params.get("TIMEOUT", 300),
                "OPTIONS": {"MAX_ENTRIES": 10_000},
            },
        )

    @cached_property
    def _cache(self) -> PooledRedisCacheClient:
        return _shared_client(self._servers, self._options)

    # --- the switch ---------------------------------------------------------------------------

    @property
    def degraded(self) -> bool:
        """Redis failed and has not answered since: operations use the per-process fallback."""
        return self.breaker.down

    def _try(self, name: str, *args: Any, **kwargs: Any) -> tuple[bool, Any]:
        return self._attempt(getattr(super(), name), *args, **kwargs)

    def _attempt(self, operation: Any, *args: Any, **kwargs: Any) -> tuple[bool, Any]:
        """Run `operation` on Redis through the breaker: (True, its result), or (False, None) when Redis
        is skipped or unreachable (the caller then uses the fallback)."""
        if not self.breaker.available():
            return False, None
        try:
            result = operation(*args, **kwargs)
        except UNREACHABLE as error:
            self.breaker.failed(error)
            return False, None
        if self.breaker.succeeded():
            self._caught_up()
        return True, result

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        done, result = self._try(name, *args, **kwargs)
        return result if done else getattr(self._fallback, name)(*args, **kwargs)

    def _fallback_timeout(self, timeout: Any) -> float:
        """Values set during an outage live a few seconds: other processes cannot delete them."""
        cap = float(settings.PONTE_REDIS_FALLBACK_TTL_SECONDS)
        seconds = self.default_timeout if timeout is DEFAULT_TIMEOUT else timeout
        return cap if seconds is None else min(float(seconds), cap)

    def _remember_deletes(self, keys: list[str]) -> None:
        pending = self._outage.pending_deletes
        with self._outage.lock:
            for key in keys:
                pending[key] = None
            if len(pending) > _PENDING_DELETES_MAX:
                logger.warning(
                    "Over %d deletes during the Redis outage; the oldest will not be replayed",
                    _PENDING_DELETES_MAX,
                )
            while len(pending) > _PENDING_DELETES_MAX:
                del pending[next(iter(pending))]

    def _caught_up(self) -> None:
        """Redis answers again: replay the deletes it missed and forget the fallback's values."""
        with self._outage.lock:
            keys = list(self._outage.pending_deletes)
            self._outage.pending_deletes.clear()
        self._fallback.clear()
        if keys:
            try:
                self._cache.delete_many(keys)
            except UNREACHABLE as error:
                self.breaker.failed(error)
                self._remember_deletes(keys)

    def probe(self) -> None:
        """Ask Redis itself (never the fallback); raises when it does not answer. For /readyz."""
        self._cache.get_client(write=True).ping()
        if self.breaker.succeeded():
            self._caught_up()

    # --- the cache API ------------------------------------------------------------------------

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        return self._call("add", key, value, timeout, version)

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._call("get", key, default, version)

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> None:
        done, _ = self._try("set", key, value, timeout, version)
        if not done:
            self._fallback.set(key, value, self._fallback_timeout(timeout), version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        return self._call("touch", key, timeout, version)

    def delete(self, key: Any, version: Any = None) -> bool:
        done, result = self._try("delete", key, version)
        if done:
            return result
        self._remember_deletes([self.make_and_validate_key(key, version=version)])
        return self._fallback.delete(key, version)

    def get_many(self, keys: Any, version: Any = None) -> dict[Any, Any]:
        return self._call("get_many", keys, version)

    def has_key(self, key: Any, version: Any = None) -> bool:
        return self._call("has_key", key, version)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        return self._call("incr", key, delta, version)

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list[Any]:
        done, result = self._try("set_many", data, timeout, version)
        if done:
            return result
        return self._fallback.set_many(data, self._fallback_timeout(timeout), version)

    def delete_many(self, keys: Any, version: Any = None) -> None:
        keys = list(keys)
        done, _ = self._try("delete_many", keys, version)
        if not done:
            self._remember_deletes([self.make_and_validate_key(key, version=version) for key in keys])
            self._fallback.delete_many(keys, version)

    def clear(self) -> None:
        self._fallback.clear()
        self._call("clear")

    def list_push(self, key: str, value: str) -> bool:
        """RPUSH `value` on the list `key` (a made key); False when Redis is skipped or unreachable (no
        fallback: a list nobody else can read is no use)."""
        done, _ = self._attempt(lambda: self._cache.get_client(write=True).rpush(key, value))
        return done

    def add_first(self, keys: Sequence[str], seconds: int, reads: Sequence[str]) -> Added:
        made = [self.make_key(key) for key in keys]
        done, replies = self._attempt(self._cache.add_first, made, seconds, [self.make_key(k) for k in reads])
        return replies if done else add_first_on(self._fallback, keys, self._fallback_timeout(seconds), reads)

    def add_then_push(self, key: Any, seconds: int, list_key: str, value: str) -> bool | None:
        """`cache_add_then_push` on Redis; None when Redis is skipped or unreachable (no fallback, as
        for `list_push`)."""
        made = self.make_key(key)
        done, pushed = self._attempt(self._cache.add_then_push, made, seconds, list_key, value)
        return pushed if done else None

    def list_reader(self, *, timeout: float) -> redis.Redis:
        """A client of this location of its own, for blocking pops of up to `timeout` seconds (its socket
        waits longer than that): never one of the shared pool's connections, which a blocked pop would
        hold."""
        return redis.Redis.from_url(
            self._servers[0],
            socket_timeout=timeout + 5,
            socket_connect_timeout=self._options.get("socket_connect_timeout"),
        )

    def count_and_get(self, counters: Sequence[Counter], reads: Sequence[str]) -> tuple[list[int], list[Any]]:
        # make_key, not make_and_validate_key: validation only warns about keys memcached would refuse,
        # a loop over every character, on every keyed call; these keys are a hash and a key prefix.
        made = [(self.make_key(c.key), c.seconds, c.increment) for c in counters]
        done, replies = self._attempt(self._cache.count_and_get, made, [self.make_key(k) for k in reads])
        if not done:
            return count_and_get_on(self._fallback, counters, reads)
        return replies[: len(counters)], replies[len(counters) :]


def cache_lists() -> bool:
    """Whether the default cache holds lists (it is Redis): the job system's wake-ups need them."""
    from django.core.cache import cache

    return hasattr(cache, "list_push")


def cache_list_key(name: str) -> str:
    """The Redis key of the list `name` in the default cache (its key prefix and version applied)."""
    from django.core.cache import cache

    return cache.make_key(name)


def cache_list_push(key: str, value: str) -> bool:
    """Append `value` to the list `key` (from cache_list_key) in one round trip, through the breaker;
    False when the default cache is not Redis or Redis is unreachable."""
    from django.core.cache import cache

    own = getattr(cache, "list_push", None)
    return bool(own is not None and own(key, value))


def cache_list_reader(*, timeout: float) -> redis.Redis:
    """A Redis client of the default cache's server for blocking pops (`BLPOP` up to `timeout` s)."""
    from django.core.cache import cache

    return cache.list_reader(timeout=timeout)


def cache_degraded() -> bool:
    """Whether the default cache is running on its per-process fallback (Redis unreachable)."""
    from django.core.cache import cache

    return bool(getattr(cache, "degraded", False))
