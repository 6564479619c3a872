"""One hub per web process (per event loop): where committed events meet the sockets listening to them.

The hub receives every committed event (webhooks.live.broadcast): from its Redis subscription when REDIS_URL
is set, else from this process's commits directly plus a poll of the outbox every PONTE_WS_POLL_SECONDS
for events other processes wrote (the poll reads a few seconds back, since an event's time is taken
before its transaction commits). Each event is offered once (its id is remembered a while) to every
listener whose grant wants it, as one rendered frame shared by all of them.

A listener's queue is bounded: a client that leaves PONTE_WS_QUEUE_FRAMES frames unread when more come
is closed as too slow, rather than growing the process's memory. Events come in batches (one poll, one
Redis message, one commit), queued whole: none of a batch can be read before all of it is queued, so a
batch's size alone never closes a client.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from webhooks.live import access, broadcast
from webhooks.live.access import Grant
from webhooks.live.broadcast import LiveEvent
from webhooks.live.frames import event_frame

logger = logging.getLogger(__name__)

# How far back the embedded default's poll reads (an event's time is taken before its commit).
POLL_LOOKBACK = timedelta(seconds=10)
POLL_LIMIT = 2000
# Event ids remembered to offer each event once (Redis mode: by count).
SEEN_MAX = 20_000
RESUBSCRIBE_SECONDS = 1.0
READY_TIMEOUT_SECONDS = 5.0


INTERRUPTED = "event stream interrupted; reconnect with since=<last id>"


class HubUnavailable(Exception):
    """The event bus cannot be reached: no live event would arrive."""


@dataclass(eq=False)
class Listener:
    grant: Grant
    # Unbounded as a queue: offer() checks the allowance once per batch.
    queue: asyncio.Queue[tuple[str, str]] = field(default_factory=asyncio.Queue)
    allowance: int = field(default_factory=lambda: settings.PONTE_WS_QUEUE_FRAMES)
    # Set when the listener must be closed: (close code, reason).
    stop: asyncio.Future[tuple[int, str]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    # While a replay runs, an overflow empties the queue instead: every event dropped was committed
    # before it was offered, so the replay's next pass reads it from the outbox (webhooks.live.asgi).
    replaying: bool = False
    overflowed: bool = False

    def offer(self, items: list[tuple[str, str]]) -> None:
        """Queue one batch's frames, (event id, frame), whole. The client had the time to read the frames
        of earlier batches, not this one's: it is too slow when those still fill its allowance. So the
        queue holds at most the allowance plus one batch (a poll's POLL_LIMIT, the publisher's batch)."""
        if self.stop.done() or not items:
            return
        if self.queue.qsize() >= self.allowance:
            if self.replaying:
                while not self.queue.empty():
                    self.queue.get_nowait()
                self.overflowed = True
                return
            self.close(
                access.TOO_SLOW,
                f"too slow: more than {self.allowance} events waiting; reconnect with since=<last id>",
            )
            return
        for item in items:
            self.queue.put_nowait(item)

    def replay_done(self, sent: set[str]) -> None:
        """The replay has sent the events `sent` and ends: their frames still queued are dropped (the
        pump would skip them anyway), so they no longer count against the client's allowance, and an
        overflow closes the socket as too slow from now on. Called on the loop right after the replay's
        last check of the queue, with no await between, so no offer comes in between."""
        waiting = []
        while not self.queue.empty():
            item = self.queue.get_nowait()
            if item[0] not in sent:
                waiting.append(item)
        for item in waiting:
            self.queue.put_nowait(item)
        self.replaying = False

    def close(self, code: int, reason: str) -> None:
        if not self.stop.done():
            self.stop.set_result((code, reason))


class Hub:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.listeners: dict[str, set[Listener]] = {}  # by account id
        self.seen: OrderedDict[str, str] = OrderedDict()  # event id -> created_at
        self.ready = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.polling = asyncio.Lock()
        self.last_poll: datetime | None = None

    # --- listeners ---------------------------------------------------------------------------------

    async def add(self, listener: Listener) -> None:
        """Register a listener once the hub receives events (raises HubUnavailable when it cannot)."""
        self._start()
        try:
            await asyncio.wait_for(self.ready.wait(), READY_TIMEOUT_SECONDS)
        except TimeoutError:
            raise HubUnavailable from None
        if settings.REDIS_URL:
            self.listeners.setdefault(listener.grant.account_id, set()).add(listener)
            return
        # Polling: the events committed so far go to the listeners already there, then the new one
        # joins: it gets what commits from now on, not the poll's look-back (history is `since`'s).
        async with self.polling:
            try:
                await self._poll_once({*self.listeners, listener.grant.account_id})
            except Exception:
                logger.exception("Live events: the outbox poll failed")
                raise HubUnavailable from None
            self.listeners.setdefault(listener.grant.account_id, set()).add(listener)

    def remove(self, listener: Listener) -> None:
        group = self.listeners.get(listener.grant.account_id)
        if group is not None:
            group.discard(listener)
            if not group:
                del self.listeners[listener.grant.account_id]

    def close_all(self, code: int, reason: str) -> None:
        for group in list(self.listeners.values()):
            for listener in list(group):
                listener.close(code, reason)

    # --- events ------------------------------------------------------------------------------------

    def offer(self, events: list[LiveEvent]) -> None:
        """On the loop: each event not offered before, to every listener that wants it, as one batch
        per listener (Listener.offer)."""
        batches: dict[Listener, list[tuple[str, str]]] = {}
        for event in events:
            if event.id in self.seen:
                continue
            self.seen[event.id] = event.created_at
            group = self.listeners.get(event.account_id)
            if not group:
                continue
            frame: str | None = None
            for listener in group:
                if listener.grant.wants(event):
                    frame = frame or event_frame(event)
                    batches.setdefault(listener, []).append((event.id, frame))
        for listener, items in batches.items():
            listener.offer(items)
        self._forget()

    def _forget(self) -> None:
        if self.last_poll is not None:
            # The poll re-reads POLL_LOOKBACK: remember ids a little longer than that.
            horizon = (self.last_poll - 3 * POLL_LOOKBACK).isoformat()
            while self.seen and next(iter(self.seen.values())) < horizon:
                self.seen.popitem(last=False)
        while len(self.seen) > SEEN_MAX:
            self.seen.popitem(last=False)

    def _offer_threadsafe(self, events: list[LiveEvent]) -> None:
        self.loop.call_soon_threadsafe(self.offer, events)

    # --- sources -----------------------------------------------------------------------------------

    def _start(self) -> None:
        if self.task is None or self.task.done():
            source = self._subscribe if settings.REDIS_URL else self._poll
            self.task = self.loop.create_task(source(), name="ponte-live-hub")

    async def _subscribe(self) -> None:
        """Redis: one subscription per process; on its loss every socket is closed (1013) so its client
        resumes with `since` from the outbox: events published meanwhile were not received."""
        import redis.asyncio as aioredis

        while True:
            client = aioredis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe(broadcast.channel())
                    self.ready.set()
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            self.offer([LiveEvent.from_dict(raw) for raw in json.loads(message["data"])])
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if self.ready.is_set():
                    logger.warning("Live events: Redis subscription lost (%s); closing sockets", error)
                self.ready.clear()
                self.close_all(
                    access.TRY_AGAIN_LATER, "event stream interrupted; reconnect with since=<last id>"
                )
            finally:
                await client.aclose()
            await asyncio.sleep(RESUBSCRIBE_SECONDS)

    async def _poll(self) -> None:
        """The embedded default: this process's commits arrive directly; other processes' by polling."""
        broadcast.local_hubs.add(self._offer_threadsafe)
        self.ready.set()
        try:
            while True:
                await asyncio.sleep(float(settings.PONTE_WS_POLL_SECONDS))
                if not self.listeners:
                    self.last_poll = None
                    continue
                async with self.polling:
                    try:
                        await self._poll_once(set(self.listeners))
                    except Exception:
                        logger.exception("Live events: the outbox poll failed")
        finally:
            broadcast.local_hubs.discard(self._offer_threadsafe)

    async def _poll_once(self, accounts: set[str]) -> None:
        """Offer the events of `accounts` recorded since shortly before the previous poll began (an
        event's time is taken before its transaction commits, so the poll looks POLL_LOOKBACK back)."""
        started = timezone.now()
        since = (self.last_poll or started) - POLL_LOOKBACK
        events = await self.loop.run_in_executor(
            None, lambda: access.recent_events(accounts, since, limit=POLL_LIMIT)
        )
        self.last_poll = started
        self.offer(events)


_hubs: dict[asyncio.AbstractEventLoop, Hub] = {}


def hub_for(loop: asyncio.AbstractEventLoop) -> Hub:
    hub = _hubs.get(loop)
    if hub is None:
        for closed in [known for known in _hubs if known.is_closed()]:
            del _hubs[closed]
        hub = _hubs[loop] = Hub(loop)
    return hub
