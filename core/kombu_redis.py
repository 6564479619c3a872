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
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection is None or self.connection.client is None:
            raise RedisConnectionError("The broker connection is closed (Redis went away).")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel
