"""A live socket's queue (webhooks.live.hub.Listener): frames of events a `since` replay already sent, and
frames of a batch (one poll, one Redis message) the client could not read yet, do not count against its
allowance of waiting frames; a client that leaves frames unread does."""

from __future__ import annotations

import asyncio
import uuid

from django.test import override_settings

from webhooks.live.access import Grant
from webhooks.live.broadcast import LiveEvent
from webhooks.live.hub import Hub, Listener


def _listener() -> Listener:
    return Listener(grant=None)  # the grant is not read by the queue


@override_settings(PONTE_WS_QUEUE_FRAMES=4)
def test_the_replays_own_events_waiting_in_the_queue_leave_it_when_the_replay_ends():
    async def scenario() -> tuple[list[tuple[str, str]], bool]:
        listener = _listener()
        listener.replaying = True
        for event_id in ("a", "b", "new", "c"):  # committed while the replay read the outbox
            listener.offer([(event_id, f"frame {event_id}")])
        listener.replay_done({"a", "b", "c"})
        for event_id in ("d", "e", "f"):  # live after the replay: room for them
            listener.offer([(event_id, f"frame {event_id}")])
        waiting = [listener.queue.get_nowait() for _ in range(listener.queue.qsize())]
        return waiting, listener.stop.done()

    waiting, closed = asyncio.run(scenario())
    assert [event_id for event_id, _ in waiting] == ["new", "d", "e", "f"]
    assert not closed


@override_settings(PONTE_WS_QUEUE_FRAMES=2)
def test_after_the_replay_a_client_that_lets_frames_pile_up_is_still_closed_as_too_slow():
    async def scenario() -> tuple[int, str]:
        listener = _listener()
        listener.replaying = True
        listener.replay_done(set())
        for event_id in ("d", "e", "f"):
            listener.offer([(event_id, f"frame {event_id}")])
        return listener.stop.result()

    code, reason = asyncio.run(scenario())
    assert code == 4008 and reason.startswith("too slow")


ACCOUNT = str(uuid.uuid4())
SESSION = str(uuid.uuid4())


def _events(count: int) -> list[LiveEvent]:
    return [
        LiveEvent(
            id=str(uuid.uuid4()),
            session_id=SESSION,
            account_id=ACCOUNT,
            name="message",
            data={"text": f"{n}"},
            chat="5511988880001@s.whatsapp.net",
            sequence=n + 1,
            event_ms=1_700_000_000_000 + n,
            created_at=f"2026-01-01T00:00:{n % 60:02d}.000000+00:00",
        )
        for n in range(count)
    ]


def _hub_with_a_listener() -> tuple[Hub, Listener]:
    hub = Hub(asyncio.get_running_loop())
    listener = Listener(Grant("", "127.0.0.1", ACCOUNT, sessions=None, events=None, since=None))
    hub.listeners[ACCOUNT] = {listener}
    return hub, listener


def _read_all(listener: Listener) -> list[str]:
    return [listener.queue.get_nowait()[0] for _ in range(listener.queue.qsize())]


@override_settings(PONTE_WS_QUEUE_FRAMES=4)
def test_a_client_that_reads_is_not_closed_when_one_poll_brings_more_events_than_its_allowance():
    # One outbox poll (or one Redis message) hands the hub many events at once: none of them can be read
    # before all are queued, so their number alone says nothing about how fast the client reads.
    async def scenario() -> tuple[list[str], list[str], bool]:
        hub, listener = _hub_with_a_listener()
        burst, more = _events(10), _events(3)
        hub.offer(burst)
        read = _read_all(listener)  # the client reads them
        hub.offer(more)
        return [e.id for e in burst + more], read + _read_all(listener), listener.stop.done()

    offered, read, closed = asyncio.run(scenario())
    assert read == offered
    assert not closed


@override_settings(PONTE_WS_QUEUE_FRAMES=4)
def test_a_client_that_has_not_read_a_burst_when_the_next_events_come_is_closed_as_too_slow():
    async def scenario() -> tuple[int, str]:
        hub, listener = _hub_with_a_listener()
        hub.offer(_events(10))
        hub.offer(_events(1))  # nothing read in between
        return listener.stop.result()

    code, reason = asyncio.run(scenario())
    assert code == 4008 and reason.startswith("too slow")
