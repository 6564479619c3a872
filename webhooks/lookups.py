"""Lookups that rarely change, kept in each process and dropped on write: what emit() needs of a
session (its registered webhooks, whether its instance webhook is on, its account) and, for the
Chatwoot mirror's sink, which sessions have a working integration.

Every event asked the database for these, though they change only when someone edits a webhook or an
integration. Each lookup here has a version number in the shared cache (Redis), bumped by every write
of the rows it reads, whatever API made it (core.writes: save and delete, and a queryset's update,
bulk_create, bulk_update and delete), and again once the writing transaction commits, so no process
re-reads the old rows in between and keeps them. A process reads the version before it uses what it
kept (or at most once per PONTE_LOOKUP_CHECK_SECONDS, when set above its default 0) and drops what it
kept when the version moved: a committed write is seen by the next event in every process, as when
every event read the database. The check is one Redis GET in place of a database query (the session's
targets: three sub-selects and a join).

With a per-process cache (locmem, the embedded default) other processes could never see a bump, so
nothing is kept there: every call asks the database, as before. A thread whose connection wrote one of
these rows in its open transaction reads the database itself until that transaction commits. While Redis
is unreachable (core.cache's per-process fallback) nothing is kept either.

An event handed to its sinks is one round (core.rounds): the first lookup to check reads every lookup's
version in one MGET, and the others use what it read (the outbox, the Chatwoot mirror and the bots paid a
GET each; tests/webhooks/test_lookups_round.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Model

from core.cache import cache_degraded
from core.rounds import current_round
from core.writes import on_write

# Every kept lookup, so that a round (core.rounds: one event handed to its sinks) reads all their
# versions in one round trip.
_ALL: list[Versioned] = []


def shared_cache() -> bool:
    return "locmem" not in settings.CACHES["default"]["BACKEND"].lower()


class Versioned:
    """Values computed by `load(key)`, kept per process until `bump()` (in any process)."""

    def __init__(self, name: str, load: Callable[[Any], Any]) -> None:
        self._version_key = f"lookups:{name}:version"
        self._load = load
        self._lock = threading.Lock()
        self._values: dict[Any, Any] = {}
        self._version: int | None = None
        self._checked = 0.0  # monotonic
        self._generation = 0  # counts the drops
        # Per thread (as Django's connections are): this thread's connection wrote rows the lookup
        # reads in a transaction that has not committed yet.
        self._written = threading.local()
        _ALL.append(self)

    def watch(self, model: type[Model], *, fields: tuple[str, ...] | None = None) -> None:
        """Bump on every write of `model`'s rows (of one of `fields`, when given), whatever API made it
        (core.writes: the model's manager must be core.writes.WatchedManager)."""
        on_write(model, self.bump, fields=fields)

    def _written_here(self) -> bool:
        """This thread's connection wrote in its open transaction: it alone sees those rows, so it reads
        the database itself and keeps nothing (a rollback could take them back). The mark goes at the
        next commit; one left by a rollback goes at the first call outside a transaction, or at the
        commit of the next transaction that calls (a transaction in between reads the database)."""
        if not getattr(self._written, "pending", False):
            return False
        if not connection.in_atomic_block:
            self._written.pending = False
            return False
        transaction.on_commit(self._written_committed)
        return True

    def _written_committed(self) -> None:
        self._written.pending = False

    def get(self, key: Any) -> Any:
        if not shared_cache() or self._written_here():
            return self._load(key)
        try:
            self._check()
            degraded = cache_degraded()
        except Exception:
            degraded = True
        if degraded:  # Redis is away: other processes' bumps cannot reach us, so keep nothing
            with self._lock:
                self._drop()
                self._checked = 0.0
            return self._load(key)
        with self._lock:
            if key in self._values:
                return self._values[key]
            generation = self._generation
        value = self._load(key)
        with self._lock:
            if generation == self._generation:  # nothing was dropped while it was read
                self._values[key] = value
        return value

    def _check(self) -> None:
        now = time.monotonic()
        interval = float(settings.PONTE_LOOKUP_CHECK_SECONDS)
        if interval > 0 and now - self._checked < interval:
            return
        version = _version_read(self._version_key)
        with self._lock:
            self._checked = now
            if version != self._version:
                self._drop()
                self._version = version

    def bump(self) -> None:
        """Drop what every process kept: now, and again once the writing transaction commits (values
        read by others meanwhile are the committed rows, dropped then). Until it commits, the writing
        connection reads the database itself (`_written_here`)."""
        if connection.in_atomic_block:
            self._written.pending = True
            transaction.on_commit(self._written_committed)
        self._bump_now()
        transaction.on_commit(self._bump_now, robust=True)

    def _drop(self) -> None:  # under the lock
        self._values.clear()
        self._generation += 1

    def _bump_now(self) -> None:
        with self._lock:
            self._drop()
            self._checked = 0.0
        round_ = current_round()
        if round_ is not None:
            round_.read = None  # the versions this round read are older than this write
        if not shared_cache():
            return
        try:
            cache.incr(self._version_key)
        except ValueError:  # not there yet (or evicted): any new value differs from the kept one
            cache.set(self._version_key, int(time.time() * 1000), timeout=None)


def _version_read(key: str) -> int:
    """A lookup's version in the shared cache; inside a round (core.rounds), every lookup's version read
    at its first check, in one round trip, and used for the rest of the round."""
    round_ = current_round()
    if round_ is None:
        return cache.get(key, 0)
    if round_.read is None:
        keys = [lookup._version_key for lookup in _ALL]
        found = cache.get_many(keys)
        round_.read = {name: found.get(name, 0) for name in keys}
    if key not in round_.read:  # a lookup made after the round's read
        return cache.get(key, 0)
    return round_.read[key]  # type: ignore[return-value]


# --- What emit() needs of a session --------------------------------------------------------------


def _session_targets_load(session_id: str) -> Any:
    from webhooks.outbox.store import store

    return store().session_targets(session_id)


session_targets = Versioned("session-targets", _session_targets_load)


# The rows the session's targets are read from (webhooks.outbox.store: session_targets): a write of a
# webhook's failure count (each batch's record) leaves them as they were.
TARGET_FIELDS = (
    "id", "session", "url", "events", "retry_count", "retry_schedule", "filter", "ordering", "status",
    "created_at",
)  # fmt: skip


def connect() -> None:
    """Drop the kept targets on every write of a webhook or an instance-webhook setting (AppConfig)."""
    from webhooks.models import InstanceWebhookConfig, Webhook

    session_targets.watch(Webhook, fields=TARGET_FIELDS)
    session_targets.watch(InstanceWebhookConfig)
