"""Claim heartbeats: a drain's claims (and its send slot) are renewed while it runs, so the lease can be
short and a killed worker's jobs are free again within seconds.

A claim is taken for its table's lease (`claimed_at`); an attempt may take longer than that (a
receiver's timeout). One daemon thread per keeper renews, every quarter lease, the claims held for
longer than that: one UPDATE of `claimed_at` for all of them (jobs.table), and the slot keys'
expiry in the cache. A worker killed with SIGKILL stops renewing, so its claims lapse one lease after
its last beat and the sweeper (or a new worker's start-up sweep) hands them over. Drains that end within
a quarter lease, the usual case, never touch the database here.

If renewing fails (the database or the cache away for a moment) the claim may lapse and another drain
may attempt the job again with the same id: at-least-once, as documented; the outcome is written only
by the claim's holder.

Each job table has its keeper. A holder may also say what to do once its claim has been out for long
(`claim(token, long_after=..., when_long=...)`): the deliveries' drain hands what waits behind a hanging
batch to another thread so. The beat calls it once, in its own thread; the keeper knows nothing of it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import connection

from jobs.table import JobTable

logger = logging.getLogger(__name__)


@dataclass
class _Held:
    renewed: float  # monotonic
    since: float = field(default_factory=time.monotonic)
    long_after: float | None = None
    when_long: Callable[[], None] | None = None


class Keeper:
    """Renews, from one daemon thread, the claims its holders registered (`claim`) on `table`."""

    def __init__(self, table: JobTable, *, background: bool = True) -> None:
        self._table = table
        self._lock = threading.Lock()
        self._claims: dict[str, _Held] = {}  # claim token -> its holding
        self._slots: dict[str, _Held] = {}  # slot cache key -> its holding
        self._background = background
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def claim(
        self, token: str, *, long_after: float | None = None, when_long: Callable[[], None] | None = None
    ) -> Iterator[None]:
        """Hold `token` renewed; `when_long` is called once (from the beat) if it is still held after
        `long_after` seconds."""
        self._add(self._claims, token, _Held(time.monotonic(), long_after=long_after, when_long=when_long))
        try:
            yield
        finally:
            self._remove(self._claims, token)

    @contextlib.contextmanager
    def slot(self, key: str | None) -> Iterator[None]:
        if not key:
            yield
            return
        self._add(self._slots, key, _Held(time.monotonic()))
        try:
            yield
        finally:
            self._remove(self._slots, key)

    def _add(self, table: dict[str, _Held], key: str, held: _Held) -> None:
        with self._lock:
            table[key] = held
            if self._background and (self._thread is None or not self._thread.is_alive()):
                name = f"{self._table.name}-lease"
                self._thread = threading.Thread(target=self._run, name=name, daemon=True)
                self._thread.start()

    def _remove(self, table: dict[str, _Held], key: str) -> None:
        with self._lock:
            table.pop(key, None)

    def _due(self, table: dict[str, _Held], now: float) -> list[str]:
        with self._lock:
            due = [key for key, held in table.items() if now - held.renewed >= self.renew_interval()]
            for key in due:
                table[key].renewed = now
            return due

    def _run(self) -> None:
        while True:
            time.sleep(self.renew_interval() / 2)
            try:
                self.beat()
            except Exception:  # never let the heartbeat die: the next beat tries again
                logger.exception("Could not renew claims (%s)", self._table.name)
            finally:
                # A thread's connection is not closed by request or task signals: do not keep it open.
                connection.close()

    def beat(self, *, now: float | None = None) -> int:
        """One heartbeat: renew what is due, then call the holders' `when_long` of claims out for long
        (once each); how many claims were renewed."""
        renewed = self.renew_due()
        now = time.monotonic() if now is None else now
        calls: list[Callable[[], None]] = []
        with self._lock:
            for held in self._claims.values():
                if held.when_long is None or held.long_after is None or now - held.since < held.long_after:
                    continue
                calls.append(held.when_long)
                held.when_long = None  # once per claim
        for call in calls:
            call()
        return renewed

    def renew_interval(self) -> float:
        return max(0.2, self._table.lease_seconds() / 4)

    def renew_due(self) -> int:
        """Renew the claims and slots held for a quarter lease or more; how many claims were renewed."""
        now = time.monotonic()
        claims, slots = self._due(self._claims, now), self._due(self._slots, now)
        for key in slots:
            cache.touch(key, timeout=int(self._table.lease_seconds()) or 1)
        if not claims:
            return 0
        return self._table.renew(claims)
