"""What Ponte's Redis cache does in one round trip (core.cache): the Lua scripts, run by their digest
(`EVALSHA`), and the same operations on any other cache backend, one operation at a time (the per-process
fallback while Redis is unreachable, local memory on the embedded default).

- count and read (`COUNT_AND_GET_SCRIPT`, `count_and_get_on`): a keyed call's rate limits and key token
  (docs/decisions/0019, 0030);
- add the first free key and read others (`ADD_FIRST_SCRIPT`, `add_first_on`): a drain's send slot and its
  target's slow mark;
- raise a flag and push only if it was down (`ADD_THEN_PUSH_SCRIPT`): a hint due now and its wake-up
  (no fallback: a list only Redis holds; docs/decisions/0039).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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

# KEYS: a flag, a list. ARGV: the flag's value, its seconds, the value to push. Raises the flag when it is
# down and then pushes; returns 1 when it did both, 0 when the flag was already up (nothing pushed).
_ADD_THEN_PUSH = """
if redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') then
  redis.call('RPUSH', KEYS[2], ARGV[3])
  return 1
end
return 0
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


class Script:
    """A Lua script and its id in Redis (EVALSHA)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.sha = hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


COUNT_AND_GET_SCRIPT = Script(_COUNT_AND_GET)
ADD_THEN_PUSH_SCRIPT = Script(_ADD_THEN_PUSH)
ADD_FIRST_SCRIPT = Script(_ADD_FIRST)


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


# --- On the default cache: Redis's script, or the backend's own operations -----------------------


def cache_count_and_get(
    counters: Sequence[Counter], reads: Sequence[str] = ()
) -> tuple[list[int], list[Any]]:
    """Count (or read) each counter and read each key of `reads` on the default cache, in one round trip
    to Redis (through the breaker; on the per-process fallback while Redis is unreachable). Returns the
    counts in the order of `counters` and the values (None: missing) in the order of `reads`."""
    from django.core.cache import cache

    own = getattr(cache, "count_and_get", None)
    return own(counters, reads) if own is not None else count_and_get_on(cache, counters, reads)


def cache_add_first(keys: Sequence[str], seconds: int, reads: Sequence[str] = ()) -> Added:
    """Add the first of `keys` that is missing (the raw integer 1 for `seconds`, as `cache.add(key, 1,
    seconds)` would) and read each key of `reads`, in one round trip to Redis (through the breaker; on
    the per-process fallback while Redis is unreachable). Returns the position in `keys` of the key added
    (None: every one was there) and the values read (None: missing)."""
    from django.core.cache import cache

    own = getattr(cache, "add_first", None)
    return own(keys, seconds, reads) if own is not None else add_first_on(cache, keys, seconds, reads)


def cache_add_then_push(key: str, seconds: int, list_key: str, value: str) -> bool | None:
    """Raise the flag `key` (a cache key, as `cache.add(key, 1, seconds)` would) and, only if it was
    down, append `value` to the list `list_key` (from cache_list_key): one round trip, through the
    breaker. True: raised and pushed; False: the flag was up already, nothing pushed; None: the default
    cache is not Redis or Redis is unreachable, nothing done."""
    from django.core.cache import cache

    own = getattr(cache, "add_then_push", None)
    return None if own is None else own(key, seconds, list_key, value)
