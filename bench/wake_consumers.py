"""The consumer ends of bench/wakeups.py, each doing nothing with a wake-up but decode it and count it:

- `bench.wake_noop`, a Celery task for Ponte's own worker (`celery -A config worker --include
  bench.wake_consumers`): the bench's, never one of Ponte's;
- `python bench/wake_consumers.py list KEY`: `BLPOP` KEY, then `LPOP KEY 100` for whatever else waits;
- `python bench/wake_consumers.py notify CHANNEL`: `LISTEN` CHANNEL on an autocommit psycopg connection,
  taking every notification that arrived with the one it woke for.

Each counts what it consumed with one Redis `INCR`/`INCRBY` on BENCH_WAKE_COUNTER per wake-up (a task,
a BLPOP, a read of notifications): the bench waits for that count, and every mechanism pays the same
round trip for it. The loops print "ready <PostgreSQL backend pid or 0>" once they listen.
"""

from __future__ import annotations

import json
import os
import sys
from functools import cache

import redis
from celery import shared_task

BATCH = 100  # at most this many waiting items taken after one BLPOP


@cache
def counter() -> tuple[redis.Redis, str]:
    """One persistent client per process (thread-safe: a connection pool) and the key it counts on."""
    return redis.Redis.from_url(os.environ["REDIS_URL"]), os.environ["BENCH_WAKE_COUNTER"]


def counted(consumed: int) -> None:
    client, key = counter()
    client.incrby(key, consumed)


@shared_task(name="bench.wake_noop")
def wake_noop(*args: str) -> None:
    """A hint that wakes the worker for nothing: Celery has decoded its arguments already."""
    counted(1)


def consume_list(key: str) -> None:
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    print("ready 0", flush=True)
    while True:
        # A second at a time, as kombu's BRPOP waits: redis-py's socket timeout (5 s) ends a longer one.
        popped = client.blpop([key], timeout=1)
        if popped is None:
            continue
        first = popped[1]
        rest = client.lpop(key, BATCH) or []
        for item in (first, *rest):
            json.loads(item)
        counted(1 + len(rest))


def consume_notify(channel: str) -> None:
    import psycopg
    from psycopg import sql

    conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
    print(f"ready {conn.info.backend_pid}", flush=True)
    while True:
        # stop_after=1 still yields every notification of the packet that brought the first; a
        # generator left before its end would drop the rest, so each one is read to its end.
        batch = list(conn.notifies(stop_after=1))
        for notify in batch:
            json.loads(notify.payload)
        counted(len(batch))


if __name__ == "__main__":
    {"list": consume_list, "notify": consume_notify}[sys.argv[1]](sys.argv[2])
