"""Wake-ups by a Redis list (jobs.wakeups): a hint due now pushed on its task's list, a listener that pops
and runs it on its own threads, as Celery would run the task. On a private redis-server as the default
cache (never the shared one: a test stops it); the listener here is the one a worker starts."""

from __future__ import annotations

import json
import threading
import time

import redis
from django.core.cache import cache

from core.logs import request_id_var
from jobs import wakeups
from tests.webhooks.support import wait_for

TASK = "tests.wake"


def _waiting(server) -> list[dict]:
    client = redis.Redis.from_url(server.url)
    return [json.loads(raw) for raw in client.lrange(cache.make_key(f"wake:{TASK}"), 0, -1)]


class Calls:
    """A task's function: records each call's args and the request id it ran under."""

    def __init__(self, *, hold: float = 0) -> None:
        self.calls: list[tuple[list, str]] = []
        self.hold = hold

    def __call__(self, *args) -> str:
        time.sleep(self.hold)
        self.calls.append((list(args), request_id_var.get("")))
        return "done"


def test_a_wake_up_goes_on_its_tasks_list_with_its_args_and_the_callers_request_id(
    private_redis_cache,
) -> None:
    token = request_id_var.set("req-wake-1")
    try:
        assert wakeups.push(TASK, [7, "http://127.0.0.1:9/hook"])
    finally:
        request_id_var.reset(token)
    assert _waiting(private_redis_cache) == [
        {"args": [7, "http://127.0.0.1:9/hook"], "request_id": "req-wake-1"}
    ]


def test_no_wake_up_is_pushed_when_the_lists_are_off_or_the_cache_is_not_redis(
    private_redis_cache, settings
) -> None:
    settings.PONTE_WAKE_LIST = False
    assert not wakeups.push(TASK, [1])
    assert not wakeups.listening()
    settings.PONTE_WAKE_LIST = True
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert not wakeups.push(TASK, [1])
    assert not wakeups.listening()


def test_a_push_while_redis_is_down_says_no_at_once_so_the_caller_publishes_to_celery(
    private_redis_cache,
) -> None:
    private_redis_cache.stop()
    started = time.monotonic()
    assert not wakeups.push(TASK, [1])
    assert not wakeups.push(TASK, [2])  # the breaker: no second wait on the dead server
    assert time.monotonic() - started < 2


def test_a_flagged_wake_up_raises_its_flag_and_pushes_in_one_script_call_once(private_redis_cache) -> None:
    before = private_redis_cache.command_calls()
    assert wakeups.push_flagged(TASK, [1], flag="tests:flag", seconds=10) is True
    after = private_redis_cache.command_calls()
    scripts = sum(after.get(name, 0) - before.get(name, 0) for name in ("evalsha", "eval"))
    assert scripts >= 1  # the SET and the RPUSH below ran inside it
    assert after["set"] - before.get("set", 0) == 1 and after["rpush"] - before.get("rpush", 0) == 1

    assert cache.get("tests:flag") == 1  # as cache.add(flag, 1) leaves it, so cache.delete lowers it
    assert wakeups.push_flagged(TASK, [2], flag="tests:flag", seconds=10) is False  # a wake-up waits
    assert [wake["args"] for wake in _waiting(private_redis_cache)] == [[1]]
    assert 0 < redis.Redis.from_url(private_redis_cache.url).ttl(cache.make_key("tests:flag")) <= 10

    cache.delete("tests:flag")  # the hint taken
    assert wakeups.push_flagged(TASK, [3], flag="tests:flag", seconds=10) is True
    assert [wake["args"] for wake in _waiting(private_redis_cache)] == [[1], [3]]


def test_a_flagged_wake_up_does_nothing_without_lists_or_with_redis_down(
    private_redis_cache, settings
) -> None:
    settings.PONTE_WAKE_LIST = False
    assert wakeups.push_flagged(TASK, [1], flag="tests:flag", seconds=10) is None
    assert cache.get("tests:flag") is None
    settings.PONTE_WAKE_LIST = True
    private_redis_cache.stop()
    assert wakeups.push_flagged(TASK, [2], flag="tests:flag", seconds=10) is None


def test_a_listener_runs_each_wake_up_under_its_request_id(private_redis_cache) -> None:
    calls = Calls()
    listener = wakeups.Listener({TASK: calls}, threads=2).start()
    try:
        token = request_id_var.set("req-wake-2")
        wakeups.push(TASK, [1, "a"])
        request_id_var.reset(token)
        wakeups.push(TASK, [2, "b"])
        wait_for(lambda: len(calls.calls) == 2, timeout=10, what="both wake-ups run")
    finally:
        listener.stop()
    assert sorted(calls.calls) == [([1, "a"], "req-wake-2"), ([2, "b"], "")]
    assert _waiting(private_redis_cache) == []


def test_a_wake_up_that_fails_is_logged_and_the_listener_goes_on(private_redis_cache, caplog) -> None:
    calls = Calls()

    def failing(*args):
        raise RuntimeError("the drain failed")

    listener = wakeups.Listener({TASK: failing, "tests.other": calls}, threads=1).start()
    try:
        wakeups.push(TASK, [1])
        wakeups.push("tests.other", [2])
        wait_for(lambda: calls.calls, timeout=10, what="the next wake-up run")
    finally:
        listener.stop()
    assert "Wake-up of tests.wake failed" in caplog.text


def test_a_listener_rides_out_redis_stopping_and_asks_for_a_sweep_when_it_is_back(
    private_redis_cache,
) -> None:
    calls, swept = Calls(), threading.Event()
    listener = wakeups.Listener({TASK: calls}, threads=2, on_back=swept.set).start()
    try:
        private_redis_cache.stop()
        time.sleep(wakeups.POP_SECONDS * 2.5)  # the listener finds Redis gone
        private_redis_cache.start()
        assert swept.wait(timeout=10), "no sweep asked for once Redis was back"
        time.sleep(0.3)  # past the cache's breaker pause
        wait_for(lambda: wakeups.push(TASK, [3]), timeout=10, what="a push once Redis is back")
        wait_for(lambda: calls.calls, timeout=10, what="the wake-up pushed after the outage")
    finally:
        listener.stop()
    assert calls.calls == [([3], "")]


def test_stopping_a_listener_waits_for_the_wake_ups_under_way(private_redis_cache) -> None:
    calls = Calls(hold=0.6)
    listener = wakeups.Listener({TASK: calls}, threads=2).start()
    wakeups.push(TASK, [1])
    wait_for(lambda: not _waiting(private_redis_cache), timeout=10, what="the wake-up popped")
    listener.stop()
    assert calls.calls == [([1], "")]  # finished, not cut off
    wakeups.push(TASK, [2])
    time.sleep(wakeups.POP_SECONDS + 0.2)
    assert _waiting(private_redis_cache) == [
        {"args": [2], "request_id": ""}
    ]  # a stopped listener pops nothing
