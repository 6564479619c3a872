"""What decision 0039's round trips cost, each beside what it replaced, in one run (issue 44).

    DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/round_trips.py [--calls 3000]

Client CPU per call (`time.process_time`, this process, one thread), on the database and Redis the
environment points at (PostgreSQL + Redis: the cases need both), two rounds, and each pair's ratio:

1. the per-request health check of a kept connection: Django's (`SELECT 1`) and core.postgresql's (a
   poll of the socket);
2. a hint due now: the flag (`cache.add`) then the wake-up (`RPUSH`), and `cache_add_then_push`;
3. a drain's start: the slow mark (`cache.get`) then a slot (`cache.add`), and `cache_add_first`;

and, for scale, the raw POST yardstick of bench/event_path.py against a local receiver.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from delivery_instruments import ReceiverProcess
from event_path import raw_post_cpu
from serving import bench_environment


def per_call(calls: int, body: Callable[[], object]) -> float:
    """Client CPU per call of `body`, in microseconds."""
    started = time.process_time()
    for _ in range(calls):
        body()
    return (time.process_time() - started) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not (os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")):
        raise SystemExit("bench/round_trips.py measures PostgreSQL and Redis: set DATABASE_URL and REDIS_URL")
    bench_environment(Path(tempfile.mkdtemp(prefix="ponte-round-trips-")))
    import django

    django.setup()
    from django.core.cache import cache
    from django.db import connections
    from django.db.backends.postgresql.base import DatabaseWrapper as DjangoWrapper

    from core.cache import cache_list_key
    from core.cache_scripts import cache_add_first, cache_add_then_push
    from core.postgresql.base import DatabaseWrapper as PonteWrapper

    connection = connections["default"]
    connection.ensure_connection()
    wake_list = cache_list_key("bench:round-trips")
    slots = [f"bench:slot:{index}" for index in range(4)]

    def checked(wrapper: type) -> Callable[[], None]:
        def check() -> None:
            connection.health_check_done = False  # what each request, task or wake-up starts with
            wrapper.close_if_health_check_failed(connection)

        return check

    def flag_then_push() -> None:
        if cache.add("bench:flag", 1, 10):
            cache._cache.get_client(write=True).rpush(wake_list, "x")
        cache.delete("bench:flag")

    def flag_and_push() -> None:
        cache_add_then_push("bench:flag", 10, wake_list, "x")
        cache.delete("bench:flag")

    def mark_then_slot() -> None:
        cache.get("bench:slow")
        next((key for key in slots if cache.add(key, 1, 60)), None)
        cache.delete(slots[0])

    def slot_and_mark() -> None:
        cache_add_first(slots, 60, ["bench:slow"])
        cache.delete(slots[0])

    pairs = [
        (
            "health check: Django's SELECT 1 | the socket's poll",
            checked(DjangoWrapper),
            checked(PonteWrapper),
        ),
        ("hint due now: add, RPUSH, delete | one script, delete", flag_then_push, flag_and_push),
        ("drain start: get, add, delete | one script, delete", mark_then_slot, slot_and_mark),
    ]
    receiver = ReceiverProcess()
    try:
        print(f"round trips (decision 0039): {args.calls} calls per case, client CPU per call")
        for round_number in range(1, args.rounds + 1):
            raw = raw_post_cpu(receiver, requests=max(500, args.calls // 3)) * 1000
            print(f"  round {round_number}: raw POST yardstick {raw:7.1f} us per request")
            for label, before, after in pairs:
                old, new = per_call(args.calls, before), per_call(args.calls, after)
                saved = (old - new) / raw
                print(
                    f"    {label:<55} {old:7.1f} | {new:7.1f} us  ({new / old:4.2f} x; {saved:+.2f} raw POST)"
                )
    finally:
        cache._cache.get_client(write=True).delete(wake_list)
        receiver.stop()
    print("  (a shared, noisy machine: compare within a run)")


if __name__ == "__main__":
    main()
