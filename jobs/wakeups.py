"""Wake-ups by a Redis list: a hint that must run now, pushed on a list a worker's listener pops, instead
of a Celery message (docs/decisions/0038).

Why: a Celery hint costs ~1.1 ms of CPU to publish and ~1.6 ms for a worker to take when events come one
at a time, a list push and pop ~0.2 and ~0.35 ms (bench/wakeups.py); an event sent through the API
paid more for its hint than for its delivery. A wake-up is a hint like any other (jobs.hints): it carries
no state, the rows are the truth, and one lost (a worker killed after its pop, Redis restarted) costs time
until the sweeper, never a job.

Where it applies: the default cache is Redis (the list lives there), PONTE_WAKE_LIST is on, and the hint
is due now. Otherwise, or when the push fails, the caller publishes its Celery hint as before: a hint due
later (Celery's countdown), the embedded default (no Redis), an outage (the broker's breaker and the
sweeper take over).

The listener runs in each worker process that consumes the queue of its tasks (started on
`worker_ready` by the client app), with a thread pool of its own: a pop runs the task's function as the
Celery task would (database connections recycled around it, the request id of the call that hinted).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from core.cache import (
    UNREACHABLE,
    cache_list_key,
    cache_list_push,
    cache_list_reader,
    cache_lists,
)
from core.cache_scripts import cache_add_then_push
from core.logs import current_request_id, request_id_var
from jobs.hints import wire

logger = logging.getLogger(__name__)

# A pop waits this long for a wake-up, then looks whether it must stop.
POP_SECONDS = 1.0


def _list_name(task: str) -> str:
    return f"wake:{task}"


def listening() -> bool:
    """Whether hints due now go on the lists (and a worker starts a listener): PONTE_WAKE_LIST is on and
    the default cache is Redis."""
    return bool(settings.PONTE_WAKE_LIST) and cache_lists()


def _payload(args: Sequence[Any]) -> str:
    return json.dumps({"args": wire(args), "request_id": current_request_id()})


def push(task: str, args: Sequence[Any]) -> bool:
    """Wake a listener to run `task(*args)` now: True when the wake-up is on its list; False when there
    are no lists (not Redis, PONTE_WAKE_LIST off) or Redis is unreachable: then publish a Celery hint."""
    if not listening():
        return False
    return cache_list_push(cache_list_key(_list_name(task)), _payload(args))


def push_flagged(task: str, args: Sequence[Any], *, flag: str, seconds: int) -> bool | None:
    """`push`, only when the cache key `flag` is down, raising it for `seconds`, in one round trip (a
    hint flag: one wake-up waiting per group is enough). True: pushed; False: the flag was up, a wake-up
    is on its way (or a run under way looks again), nothing pushed; None: no lists or Redis unreachable,
    nothing done (the caller's flag and Celery hint then)."""
    if not listening():
        return None
    return cache_add_then_push(flag, seconds, cache_list_key(_list_name(task)), _payload(args))


class Listener:
    """Pops the wake-ups of `tasks` (task name → the function its Celery task runs) and runs each on a
    pool of `threads`; `on_back` runs once Redis answers again after the listener lost it (wake-ups
    pushed meanwhile went to Celery or were not tried: a sweep finds their jobs at once)."""

    def __init__(
        self,
        tasks: Mapping[str, Callable[..., Any]],
        *,
        threads: int,
        on_back: Callable[[], None] | None = None,
    ) -> None:
        if not cache_lists():
            raise RuntimeError("Wake-up lists need the Redis cache (REDIS_URL)")
        self._tasks = {cache_list_key(_list_name(name)): (name, function) for name, function in tasks.items()}
        self._free = threading.Semaphore(threads)
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="wake")
        self._on_back = on_back
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="wake-listener", daemon=True)

    def start(self) -> Listener:
        self._thread.start()
        return self

    def stop_popping(self) -> None:
        """Pop nothing more (a worker's shutdown has begun); returns at once."""
        self._stopping.set()

    def stop(self) -> None:
        """Pop nothing more and wait for the wake-ups under way (their deliveries record their outcome
        rather than being cut mid-POST, as Celery's warm shutdown waits for its tasks)."""
        self._stopping.set()
        self._thread.join(timeout=POP_SECONDS + 5)
        self._pool.shutdown(wait=True)

    def _loop(self) -> None:
        reader, lost = None, False
        keys = list(self._tasks)
        while not self._stopping.is_set():
            if not self._free.acquire(timeout=POP_SECONDS):
                continue  # every thread busy: pop nothing until one is free
            try:
                reader = reader or cache_list_reader(timeout=POP_SECONDS)
                popped = reader.blpop(keys, timeout=POP_SECONDS)
            except UNREACHABLE as error:
                self._free.release()
                if not lost:
                    logger.warning("Wake-up lists unreachable (%s); hints go to Celery meanwhile", error)
                lost, reader = True, None
                self._stopping.wait(POP_SECONDS)
                continue
            if lost:
                lost = False
                logger.warning("Wake-up lists reachable again")
                self._back()
            if popped is None:
                self._free.release()
                continue
            self._pool.submit(self._run, *popped)

    def _back(self) -> None:
        if self._on_back is not None:
            try:
                self._on_back()
            except Exception:
                logger.warning("The listener's sweep after an outage failed", exc_info=True)

    def _run(self, key: bytes, raw: bytes) -> None:
        """One wake-up, as Celery runs a task: connections past their age or broken closed before and
        after (config/celery.py), the hinting call's request id on the log lines."""
        name, function = self._tasks[key.decode()]
        try:
            wake = json.loads(raw)
            request_id_var.set(wake.get("request_id") or "")
            close_old_connections()
            started = time.monotonic()
            result = function(*wake["args"])
            # The line Celery's trace writes for a task ("Task ... succeeded in ..."), for the same uses.
            logger.info("Wake-up %s%s: %r in %.3f s", name, wake["args"], result, time.monotonic() - started)
        except Exception:
            logger.exception("Wake-up of %s failed; the sweeper finds its jobs", name)
        finally:
            close_old_connections()
            request_id_var.set("")
            self._free.release()
