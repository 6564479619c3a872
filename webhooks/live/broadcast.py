"""The writing side of the live event socket (`/ws`, webhooks.live): committed events, published.

`emit()` calls `publish_on_commit()` for every event it records. Once the caller's transaction commits
(a rolled-back event is never seen live), the event goes

* with REDIS_URL set, to a Redis pub/sub channel that every web process's hub listens to, whatever
  process wrote it (web, worker, engine). Publishing happens on a background thread of the writing
  process, a batch of events per message, so a commit never waits on Redis; while Redis is unreachable
  nothing is published (the hubs lose their subscription too and close their sockets, whose clients
  resume with `since`, read from the outbox);
* on the embedded default (no Redis), to the hubs of this process directly. Events written by another
  process (a worker, `manage.py` commands) reach a web process's hub through its poll of the outbox.

Nothing here imports the socket: a hub registers itself with `local_hubs`.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction

from core.breaker import Breaker

logger = logging.getLogger(__name__)

# Events published in one Redis message at most (a burst of commits is drained in batches).
BATCH = 200


@dataclass(frozen=True)
class LiveEvent:
    """An outbox event as the hubs need it: enough to filter it and render its frame without a query."""

    id: str
    session_id: str
    account_id: str
    name: str
    data: Any
    chat: str
    sequence: int
    event_ms: int
    created_at: str  # ISO 8601 with microseconds (the outbox's order)

    @classmethod
    def of(cls, event: Any, *, account_id: Any) -> LiveEvent:
        created: datetime = event.created_at
        return cls(
            id=str(event.pk),
            session_id=str(event.session_id),
            account_id=str(account_id),
            name=event.name,
            data=event.data,
            chat=event.chat,
            sequence=int(event.sequence),
            event_ms=int(event.event_ms),
            created_at=created.isoformat(),
        )

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> LiveEvent:
        return cls(**{name: raw[name] for name in cls.__dataclass_fields__})


def channel() -> str:
    """The Redis channel of committed events. Pub/sub ignores Redis's database numbers, so the default
    name carries REDIS_URL's: two deployments (or test runs) on one Redis server on different
    databases do not see each other's events."""
    if settings.PONTE_WS_CHANNEL:
        return settings.PONTE_WS_CHANNEL
    database = urlsplit(settings.REDIS_URL).path.strip("/") or "0"
    return f"ponte:events:db{database}"


# --- The embedded default: hubs of this process ----------------------------------------------------

# Callables taking a list of LiveEvent, registered by the hubs running in this process (one per event
# loop, so normally one). Called on the committing thread: each hands the events to its own loop.
local_hubs: set[Callable[[list[LiveEvent]], None]] = set()


def _offer_locally(events: list[LiveEvent]) -> None:
    for hub in list(local_hubs):
        try:
            hub(events)
        except Exception:  # a hub whose loop is gone must not fail a commit
            logger.exception("A live hub refused events")


# --- Redis: one publisher thread per process -------------------------------------------------------


class _Publisher:
    def __init__(self) -> None:
        self.pending: queue.SimpleQueue[LiveEvent] = queue.SimpleQueue()
        self.pid = 0
        self.lock = threading.Lock()
        self.breaker = Breaker("Redis (live events)")
        self.client: Any = None

    def put(self, event: LiveEvent) -> None:
        if self.pid != os.getpid():  # first use, or a forked child: the parent's thread is not here
            with self.lock:
                if self.pid != os.getpid():
                    self.pending = queue.SimpleQueue()
                    self.client = None
                    threading.Thread(target=self._run, name="ponte-live-publisher", daemon=True).start()
                    self.pid = os.getpid()
        self.pending.put(event)

    def _run(self) -> None:
        while True:
            batch = [self.pending.get()]
            while len(batch) < BATCH:
                try:
                    batch.append(self.pending.get_nowait())
                except queue.Empty:
                    break
            self._publish(batch)

    def _publish(self, batch: list[LiveEvent]) -> None:
        if not self.breaker.available():
            return
        try:
            if self.client is None:
                import redis

                self.client = redis.Redis.from_url(
                    settings.REDIS_URL, socket_connect_timeout=0.5, socket_timeout=2
                )
            # A shallow dict per event: asdict() deep-copies the payload for nothing (json reads it once).
            rows = [{name: getattr(event, name) for name in _FIELDS} for event in batch]
            body = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
            self.client.publish(channel(), body)
        except Exception as error:
            self.breaker.failed(error)
            logger.warning("Could not publish %d live event(s); sockets resume with since", len(batch))
            return
        self.breaker.succeeded()


_FIELDS = tuple(LiveEvent.__dataclass_fields__)
_publisher = _Publisher()


def publish(events: list[LiveEvent]) -> None:
    """Hand committed events to the hubs: through Redis when it is configured, else in this process."""
    if settings.REDIS_URL:
        for event in events:
            _publisher.put(event)
    else:
        _offer_locally(events)


def publish_on_commit(event: Any, *, account_id: Any) -> None:
    """Publish `event` (a webhooks Event just written) once the current transaction commits."""
    if account_id is None:  # the session is gone: no socket can listen to it
        return
    live = LiveEvent.of(event, account_id=account_id)
    transaction.on_commit(lambda: publish([live]), robust=True)
