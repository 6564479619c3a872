"""kombu's Redis transport, made to survive a broker that goes away while a worker holds messages.

When Redis stops, the worker's consumer closes the broken connection and reconnects (the retries of
CELERY_BROKER_CONNECTION_*). Closing a channel puts the messages it still holds back on their queue; with
Redis gone that needs a new connection, and by then kombu has detached the transport from its connection
settings, so building one fails with `AttributeError: 'NoneType' object has no attribute 'hostname'`.
An AttributeError is no connection error: the consumer does not catch it and the worker ends with
"Unrecoverable error" instead of reconnecting. Here the same situation raises Redis's own
`ConnectionError`, which kombu and Celery treat as the lost connection it is: the close goes on, the
consumer reconnects, and the held messages stay in Redis's unacked set, restored after the visibility
timeout (the outbox's sweeper finds their deliveries again well before: the rows are the truth).

It also keeps one `redis.Redis` per connection pool: kombu builds a new one for every operation that
brings none (each publish of a hint in the web, each ack in the worker), and redis-py's constructor fills
a table of ~180 response callbacks each time (about 6 % of a worker's CPU per delivery, issue 44's
profile). A client is a handle on its pool, safe to share between threads.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(kombu_redis.Channel):
    _pool_client: Any = None

    def _create_client(self, asynchronous: bool = False) -> Any:
        if asynchronous:  # the consumer's polling client: kombu keeps that one itself
            return super()._create_client(asynchronous=True)
        pool = self.pool  # a new pool after kombu dropped the old one (a lost connection, a fork)
        client = self._pool_client
        if client is None or client.connection_pool is not pool:
            client = self._pool_client = super()._create_client()
        return client

    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection is None or self.connection.client is None:
            raise RedisConnectionError("The broker connection is closed (Redis went away).")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel
