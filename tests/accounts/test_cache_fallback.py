"""The Redis cache's fallback (core/cache.py): a real redis-server this test stops and starts, never the
shared one. While it is down the cache answers from process memory, quickly and without errors; deletes
made meanwhile reach Redis once it is back."""

from __future__ import annotations

import time

import pytest
import redis
from django.http import HttpRequest

from accounts.ratelimit import degraded_rate
from core.breaker import Breaker
from core.cache import Counter, RedisCache
from core.errors import as_application_error, error_body


@pytest.fixture
def backend(redis_server, settings) -> RedisCache:
    settings.PONTE_REDIS_RETRY_SECONDS = 0.2
    return RedisCache(
        redis_server.url, {"KEY_PREFIX": "fallback-test", "OPTIONS": {"socket_connect_timeout": 0.5}}
    )


def test_the_cache_answers_from_process_memory_while_redis_is_down(redis_server, backend) -> None:
    backend.set("kept", "in redis")
    redis_server.stop()

    assert backend.get("kept") is None  # a miss: callers read the database
    assert backend.add("claim", 1, 5) is True
    assert backend.add("claim", 1, 5) is False  # atomic claims still hold, per process
    assert backend.incr("claim") == 2
    assert backend.degraded
    started = time.monotonic()
    for _ in range(200):
        backend.get("kept")
    assert time.monotonic() - started < 1  # the breaker: nobody waits on the dead server


def test_a_second_backend_instance_shares_the_outage_state_of_its_location(redis_server, backend) -> None:
    redis_server.stop()
    backend.add("claim", 1, 5)
    other = RedisCache(redis_server.url, {"KEY_PREFIX": "fallback-test"})
    assert other.degraded
    assert other.add("claim", 1, 5) is False


def test_deletes_made_during_the_outage_reach_redis_when_it_is_back(redis_server, backend, settings) -> None:
    redis_server.stop()
    backend.get("anything")  # finds Redis gone
    backend.delete("revoked-key")
    redis_server.start()  # empty, as after a restart; write the stale entry the delete must remove
    direct = redis.Redis.from_url(redis_server.url)
    direct.set(backend.make_key("revoked-key"), b"stale")
    time.sleep(0.3)  # past the breaker's pause

    assert backend.get("unrelated") is None  # the first call that reaches Redis catches up
    assert not backend.degraded
    assert direct.get(backend.make_key("revoked-key")) is None


def test_the_breaker_pauses_for_the_retry_setting_in_force_when_it_opens(settings) -> None:
    # A breaker lives as long as its process (one per Redis location, some per module): its pause is
    # read when it opens, so a changed setting is followed (a test's override, or two tests whose
    # private redis-servers happened to get the same port).
    settings.PONTE_REDIS_RETRY_SECONDS = 30.0
    breaker = Breaker("a test dependency")
    settings.PONTE_REDIS_RETRY_SECONDS = 0.05
    breaker.failed(ConnectionError("refused"))
    assert not breaker.available()
    time.sleep(0.1)
    assert breaker.available()


def test_readyz_probe_asks_redis_itself_not_the_fallback(redis_server, backend) -> None:
    redis_server.stop()
    backend.set("x", 1)
    with pytest.raises(redis.exceptions.ConnectionError):
        backend.probe()


def test_a_degraded_rate_is_a_share_of_the_limit_and_never_zero(settings) -> None:
    settings.PONTE_RATELIMIT_DEGRADED_SHARE = 0.25
    assert degraded_rate("60/m") == "15/m"
    assert degraded_rate("2/m") == "1/m"


@pytest.mark.parametrize(
    ("path", "status", "body"),
    [
        ("/api/me", 503, {"statusCode": 503, "error": "SERVICE_UNAVAILABLE"}),
        ("/gateway/webhooks", 503, {"error": "Service temporarily unavailable"}),
        ("/bonds/api/", 200, {"bonds": []}),
    ],
)
def test_an_unreachable_redis_that_escapes_is_a_503_in_the_interface_shape(path, status, body) -> None:
    request = HttpRequest()
    request.path = path
    error = as_application_error(redis.exceptions.ConnectionError("refused"))
    assert error is not None and error.headers["Retry-After"]
    rendered, code = error_body(path, error)
    assert code == status
    assert body.items() <= rendered.items()
    if path.startswith("/bonds/"):
        assert rendered["response"]["status"] == "rate_limited"


def test_counts_and_reads_in_one_call_go_to_process_memory_while_redis_is_down(redis_server, backend) -> None:
    counters = [
        Counter("plan-count", 60),
        Counter("endpoint-count", 60),
        Counter("read-only", 60, increment=False),
    ]
    backend.set("token", "abc")
    assert backend.count_and_get(counters, ["token", "missing"]) == ([1, 1, 0], ["abc", None])
    redis_server.stop()

    assert backend.count_and_get(counters, ["token"]) == ([1, 1, 0], [None])  # counted afresh, per process
    assert backend.count_and_get(counters, ["token"]) == ([2, 2, 0], [None])
    assert backend.degraded


def test_first_free_adds_go_to_process_memory_while_redis_is_down(redis_server, backend) -> None:
    backend.set("slot:0", 1)
    backend.set("mark", True)
    assert backend.add_first(["slot:0", "slot:1"], 60, ["mark", "missing"]) == (1, [True, None])
    assert backend.add_first(["slot:0", "slot:1"], 60, []) == (None, [])  # both held
    backend.delete("slot:1")
    assert backend.add_first(["slot:1"], 60, []) == (0, [])
    redis_server.stop()

    assert backend.add_first(["slot:0", "slot:1"], 60, ["mark"]) == (0, [None])  # per process, afresh
    assert backend.add_first(["slot:0", "slot:1"], 60, ["mark"]) == (1, [None])
    backend.delete("slot:0")
    assert backend.degraded
    redis_server.start()
    direct = redis.Redis.from_url(redis_server.url)
    direct.set(backend.make_key("slot:0"), b"1")  # as if held when Redis went away
    time.sleep(0.3)  # past the breaker's pause
    assert backend.get("unrelated") is None  # catches up: the deletes made meanwhile reach Redis
    assert direct.get(backend.make_key("slot:0")) is None
