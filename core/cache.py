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

`cache_count_and_get` counts and reads several keys in one round trip (one Lua script): a keyed call's
rate limits and its key token (accounts.admission) cost one trip to Redis, not four (docs/decisions/0019,
0030). `cache_list_push` and `cache_list_reader` carry the job system's wake-ups (jobs.wakeups, decision
0038): a list in the same Redis, pushed through the breaker, read with a blocking pop;
`cache_add_then_push` pushes only when it raises a flag and `cache_take` reads and lowers it, each in one
round trip (a target's hint flag and its wake-up, decision 0039).
"""

from __future__ import annotations

import hashlib
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

logger = logging.getLogger(__name__)

# What "Redis is not there" looks like (refused, reset, timed out, loading after a restart).
UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)
# Deletes remembered for replay; past this many the oldest are dropped (and the loss is logged).
_PENDING_DELETES_MAX = 10_000

# KEYS: the counters, then the keys to read. ARGV: the number of counters n, each counter's seconds, then
# each counter's increment flag ("1": INCR, else GET). Returns the counts (a missing counter reads 0) then
# the values read (false, a nil reply, when missing). No hole in the array: Redis stops a Lua array at nil.
_COUNT_AND_GET = """
local n = tonumber(ARGV[1])
local out = {}
for i = 1, n do
  redis.call('SET', KEYS[i], 0, 'EX', ARGV[1 + i], 'NX')
  if ARGV[1 + n + i] == '1' then
    out[i] = redis.call('INCR', KEYS[i])
  else
    out[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  end
end
for i = n + 1, #KEYS do
  out[i] = redis.call('GET', KEYS[i])
end
return out
"""

# KEYS: a flag, a list. ARGV: the flag's value, its seconds, the value to push, the mark. Raises the flag
# when it is down and then pushes: 1. When it is up already, it becomes the mark (its expiry kept), so
# whoever lowers it can tell a push was skipped meanwhile: 0.
_ADD_THEN_PUSH = """
if redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') then
  redis.call('RPUSH', KEYS[2], ARGV[3])
  return 1
end
redis.call('SET', KEYS[1], ARGV[4], 'XX', 'KEEPTTL')
return 0
"""

# KEYS: the key to take, then keys to delete with it. Returns its value (false: missing), all deleted.
_TAKE = """
local value = redis.call('GET', KEYS[1])
redis.call('DEL', unpack(KEYS))
return value
"""

# KEYS: the candidates, then the keys to read. ARGV: the number of candidates n, the value, its seconds.
# Sets the first candidate that is missing (SET NX); returns its position (1-based; 0: all were taken),
# then the values read (false when missing). No hole in the array, as above.
_ADD_FIRST = """
local n = tonumber(ARGV[1])
local out = {0}
for i = 1, n do
  if redis.call('SET', KEYS[i], ARGV[2], 'EX', ARGV[3], 'NX') then
    out[1] = i
    break
  end
end
for i = n + 1, #KEYS do
  out[#out + 1] = redis.call('GET', KEYS[i])
end
return out
"""


class _Script:
    """A Lua script and its id in Redis (EVALSHA)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.sha = hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


_COUNT_AND_GET_SCRIPT = _Script(_COUNT_AND_GET)
_ADD_THEN_PUSH_SCRIPT = _Script(_ADD_THEN_PUSH)
_ADD_FIRST_SCRIPT = _Script(_ADD_FIRST)
_TAKE_SCRIPT = _Script(_TAKE)


@dataclass(frozen=True)
class Counter:
    """A counter in the cache: created at 0 to live `seconds` when missing, then raised by one (or, with
    `increment=False`, only read). Raw integers, as Django's `add`/`incr` store them."""

    key: str
    seconds: int
    increment: bool = True


def count_and_get_on(
    cache: Any, counters: Sequence[Counter], reads: Sequence[str]
) -> tuple[list[int], list[Any]]:
    """`cache_count_and_get` with a backend's own operations (local memory: each one a lock, no I/O)."""
    counts = []
    for counter in counters:
        cache.add(counter.key, 0, counter.seconds)
        try:
            counts.append(cache.incr(counter.key) if counter.increment else cache.get(counter.key, 0))
        except ValueError:  # expired between the add and the incr
            cache.add(counter.key, int(counter.increment), counter.seconds)
            counts.append(int(counter.increment))
    return counts, [cache.get(key) for key in reads]


# What cache_add_first returns: the position of the key it added (None: none), the values it read.
Added = tuple[int | None, list[Any]]


def add_first_on(cache: Any, keys: Sequence[str], seconds: int, reads: Sequence[str]) -> Added:
    """`cache_add_first` with a backend's own operations (local memory: each one a lock, no I/O)."""
    taken = next((index for index, key in enumerate(keys) if cache.add(key, 1, seconds)), None)
    return taken, [cache.get(key) for key in reads]


def take_on(cache: Any, key: str, also: Sequence[str]) -> Any:
    """`cache_take` with a backend's own operations (two of them: a read, then the deletes)."""
    value = cache.get(key)
    cache.delete_many([key, *also])
    return value


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
        replies = self._run_script(_COUNT_AND_GET_SCRIPT, keys, args)
        counts = [int(reply or 0) for reply in replies[: len(counters)]]
        values = replies[len(counters) :]
        return [*counts, *(None if value is None else self._serializer.loads(value) for value in values)]

    def add_first(self, keys: Sequence[str], seconds: int, reads: Sequence[str]) -> Added:
        """One script call: `SET key 1 EX seconds NX` on each of `keys` (made keys) until one is set,
        then a `GET` per read. The position of the key set (None: none was free) and the values."""
        replies = self._run_script(_ADD_FIRST_SCRIPT, [*keys, *reads], [len(keys), 1, seconds])
        values = [None if value is None else self._serializer.loads(value) for value in replies[1:]]
        return (int(replies[0]) - 1 if replies[0] else None), values

    def add_then_push(self, flag: str, seconds: int, key: str, value: str, mark: int) -> bool:
        """One script call: raise `flag` (a made key, Django's raw integer 1, for `seconds`) unless it is
        up, and only then push `value` on the list `key`; a flag up already becomes `mark`. Whether it
        pushed."""
        return bool(self._run_script(_ADD_THEN_PUSH_SCRIPT, [flag, key], [1, seconds, value, mark]))

    def take(self, key: str, also: Sequence[str]) -> Any:
        """One script call: the value of `key` (a made key; None: missing), deleted with `also`."""
        value = self._run_script(_TAKE_SCRIPT, [key, *also], [])
        return None if value is None else self._serializer.loads(value)

    def _run_script(self, script: _Script, keys: list[str], args: list[Any]) -> Any:
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

    def add_then_push(self, key: Any, seconds: int, list_key: str, value: str, mark: int) -> bool | None:
        """`cache_add_then_push` on Redis; None when Redis is skipped or unreachable (no fallback, as
        for `list_push`)."""
        made = self.make_key(key)
        done, pushed = self._attempt(self._cache.add_then_push, made, seconds, list_key, value, mark)
        return pushed if done else None

    def take(self, key: Any, also: Sequence[Any] = ()) -> Any:
        made = [self.make_key(k) for k in also]
        done, value = self._attempt(self._cache.take, self.make_key(key), made)
        if done:
            return value
        self._remember_deletes([self.make_key(key), *made])
        return take_on(self._fallback, key, also)

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


def cache_count_and_get(
    counters: Sequence[Counter], reads: Sequence[str] = ()
) -> tuple[list[int], list[Any]]:
    """Count (or read) each counter and read each key of `reads` on the default cache, in one round trip
    to Redis (through the breaker; on the per-process fallback while Redis is unreachable). Returns the
    counts in the order of `counters` and the values (None: missing) in the order of `reads`."""
    from django.core.cache import cache

    own = getattr(cache, "count_and_get", None)
    return own(counters, reads) if own is not None else count_and_get_on(cache, counters, reads)


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


def cache_add_first(keys: Sequence[str], seconds: int, reads: Sequence[str] = ()) -> Added:
    """Add the first of `keys` that is missing (the raw integer 1 for `seconds`, as `cache.add(key, 1,
    seconds)` would) and read each key of `reads`, in one round trip to Redis (through the breaker; on
    the per-process fallback while Redis is unreachable). Returns the position in `keys` of the key added
    (None: every one was there) and the values read (None: missing)."""
    from django.core.cache import cache

    own = getattr(cache, "add_first", None)
    return own(keys, seconds, reads) if own is not None else add_first_on(cache, keys, seconds, reads)


def cache_add_then_push(key: str, seconds: int, list_key: str, value: str, *, mark: int) -> bool | None:
    """Raise the flag `key` (a cache key, as `cache.add(key, 1, seconds)` would) and, only if it was
    down, append `value` to the list `list_key` (from cache_list_key); a flag up already is set to `mark`
    (its expiry kept), so whoever lowers it (cache_take) can tell a push was skipped meanwhile. One round
    trip, through the breaker. True: raised and pushed; False: the flag was up already, nothing pushed;
    None: the default cache is not Redis or Redis is unreachable, nothing done."""
    from django.core.cache import cache

    own = getattr(cache, "add_then_push", None)
    return None if own is None else own(key, seconds, list_key, value, mark)


def cache_take(key: str, also: Sequence[str] = ()) -> Any:
    """The value of `key` (None: missing), deleted along with the keys of `also`: one round trip to
    Redis (through the breaker; while it is unreachable, on the fallback, the deletes replayed later)."""
    from django.core.cache import cache

    own = getattr(cache, "take", None)
    return own(key, also) if own is not None else take_on(cache, key, also)


def cache_list_reader(*, timeout: float) -> redis.Redis:
    """A Redis client of the default cache's server for blocking pops (`BLPOP` up to `timeout` s)."""
    from django.core.cache import cache

    return cache.list_reader(timeout=timeout)


def cache_degraded() -> bool:
    """Whether the default cache is running on its per-process fallback (Redis unreachable)."""
    from django.core.cache import cache

    return bool(getattr(cache, "degraded", False))
