"""The hand-over from a `since` replay to live frames (webhooks.live.hub.Listener): frames of events the
replay already sent do not count against a client's allowance of waiting frames."""

from __future__ import annotations

import asyncio

from django.test import override_settings

from webhooks.live.hub import Listener


def _listener() -> Listener:
    return Listener(grant=None)  # the grant is not read by the queue


@override_settings(PONTE_WS_QUEUE_FRAMES=4)
def test_the_replays_own_events_waiting_in_the_queue_leave_it_when_the_replay_ends():
    async def scenario() -> tuple[list[tuple[str, str]], bool]:
        listener = _listener()
        listener.replaying = True
        for event_id in ("a", "b", "new", "c"):  # committed while the replay read the outbox
            listener.offer(event_id, f"frame {event_id}")
        listener.replay_done({"a", "b", "c"})
        for event_id in ("d", "e", "f"):  # live after the replay: room for them
            listener.offer(event_id, f"frame {event_id}")
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
            listener.offer(event_id, f"frame {event_id}")
        return listener.stop.result()

    code, reason = asyncio.run(scenario())
    assert code == 4008 and reason.startswith("too slow")
