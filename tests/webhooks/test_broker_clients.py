"""core/kombu_redis.py's one Redis client per connection pool: kombu asks for a client on every publish
and every ack; the channel hands back the same one while its pool stands, and a new one on the pool kombu
builds after dropping the old (a lost connection, a fork). On a private redis-server."""

from __future__ import annotations

from kombu import Connection, Exchange, Producer, Queue

import config.celery  # noqa: F401 (registers core.kombu_redis as the redis:// transport)


def _channel(url: str):
    connection = Connection(url)
    return connection, connection.default_channel


def test_a_channel_hands_back_one_client_while_its_pool_stands(redis_server) -> None:
    connection, channel = _channel(redis_server.url)
    try:
        first = channel._create_client()
        assert channel._create_client() is first
        assert first.connection_pool is channel.pool
        # What kombu does with it still works: a publish, then the message read back.
        queue = Queue("broker-clients-test", Exchange("broker-clients-test"), "k")
        Producer(channel).publish({"n": 1}, exchange=queue.exchange, routing_key="k", declare=[queue])
        message = queue(channel).get(no_ack=True)
        assert message is not None and message.payload == {"n": 1}
    finally:
        connection.release()


def test_a_channel_builds_a_new_client_for_the_pool_that_replaced_a_dropped_one(redis_server) -> None:
    connection, channel = _channel(redis_server.url)
    try:
        before = channel._create_client()
        channel._disconnect_pools()  # what kombu does after a fork or a lost connection
        after = channel._create_client()
        assert after is not before
        assert after.connection_pool is channel.pool
        assert after.ping()
    finally:
        connection.release()
