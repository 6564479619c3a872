"""A keyed call's counters and reads are one script call on Redis (core.cache, docs/decisions/0030): one
command reaches the server per call, a server that lost its scripts (a restart, SCRIPT FLUSH) gets the
script again within the same call, and the counts and values are those of SET NX + INCR/GET + GET."""

from __future__ import annotations

import pytest
import redis

from core.cache import Counter, RedisCache


@pytest.fixture
def backend(redis_server, settings) -> RedisCache:
    settings.PONTE_REDIS_RETRY_SECONDS = 0.2
    return RedisCache(redis_server.url, {"KEY_PREFIX": "script-test"})


def _calls(direct: redis.Redis) -> dict[str, int]:
    stats = direct.info("commandstats")
    return {name.removeprefix("cmdstat_"): entry["calls"] for name, entry in stats.items()}


def test_a_count_and_read_is_one_command_on_the_server(redis_server, backend) -> None:
    direct = redis.Redis.from_url(redis_server.url)
    backend.set("token", "abc")
    counters = [Counter("plan", 60), Counter("endpoint", 60), Counter("read-only", 60, increment=False)]
    backend.count_and_get(counters, ["token"])  # loads the script
    direct.config_resetstat()

    assert backend.count_and_get(counters, ["token", "missing"]) == ([2, 2, 0], ["abc", None])
    calls = _calls(direct)
    assert calls.pop("evalsha") == 1
    assert "eval" not in calls and "multi" not in calls
    assert direct.ttl(backend.make_key("plan")) == 60


def test_a_server_that_lost_the_script_gets_it_again_in_the_same_call(redis_server, backend) -> None:
    backend.count_and_get([Counter("plan", 60)], [])
    redis.Redis.from_url(redis_server.url).script_flush()

    assert backend.count_and_get([Counter("plan", 60)], []) == ([2], [])
    assert not backend.degraded


def test_a_restarted_server_is_reached_again_without_an_outage(redis_server, backend) -> None:
    backend.count_and_get([Counter("plan", 60)], [])
    redis_server.stop()
    redis_server.start()  # the pooled connection is dead, the script and the counter gone

    assert backend.count_and_get([Counter("plan", 60)], ["token"]) == ([1], [None])
    assert not backend.degraded
