"""Publishing to the event stream's broker (AMQP, RabbitMQ) with kombu: one connection per worker
thread, kept between jobs, dropped on any failure (the next job connects again).

Every message is persistent (delivery_mode 2) and confirmed by the broker (`confirm_publish`): a
publish returns only once RabbitMQ has taken the message, so a job marked published is on the broker,
and any error (refused, reset, timed out, nacked) leaves the job to be retried.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from kombu import Connection, Exchange, Producer

_local = threading.local()


@dataclass
class _Link:
    url: str
    exchange_name: str
    connection: Connection
    producer: Producer
    exchange: Exchange


def exchange_for(name: str) -> Exchange:
    """The stream's exchange: a durable topic exchange (routing keys `<sessionId>.<event>`)."""
    return Exchange(name, type="topic", durable=True, auto_delete=False)


def _open(url: str, exchange_name: str) -> _Link:
    timeout = float(settings.PONTE_EVENT_STREAM_TIMEOUT_SECONDS)
    connection = Connection(
        url, connect_timeout=timeout, heartbeat=0, transport_options={"confirm_publish": True}
    )
    try:
        connection.ensure_connection(max_retries=1, timeout=timeout)
        exchange = exchange_for(exchange_name)
        channel = connection.channel()
        exchange(channel).declare()
        producer = Producer(channel, exchange=exchange)
    except Exception:
        with contextlib.suppress(Exception):
            connection.release()
        raise
    return _Link(url, exchange_name, connection, producer, exchange)


def _link() -> tuple[_Link, bool]:
    """This thread's link to the broker, and whether it was opened just now."""
    url, name = settings.PONTE_EVENT_STREAM_URL, settings.PONTE_EVENT_STREAM_EXCHANGE
    link: _Link | None = getattr(_local, "link", None)
    if link is not None and (link.url, link.exchange_name) == (url, name):
        return link, False
    drop()  # none yet, or the settings moved (tests; a reconfigured process)
    link = _local.link = _open(url, name)
    return link, True


def drop() -> None:
    """Forget this thread's connection (after a failure, or when the settings changed)."""
    link: _Link | None = getattr(_local, "link", None)
    _local.link = None
    if link is not None:
        with contextlib.suppress(Exception):
            link.connection.release()


def _send(link: _Link, body: bytes, routing_key: str, message_id: str, headers: dict[str, Any]) -> None:
    timeout = float(settings.PONTE_EVENT_STREAM_TIMEOUT_SECONDS)
    link.producer.publish(
        body,
        routing_key=routing_key,
        exchange=link.exchange,
        delivery_mode=2,
        content_type="application/json",
        content_encoding="utf-8",
        message_id=message_id,
        headers=headers,
        retry=False,
        timeout=timeout,
        confirm_timeout=timeout,
    )


def publish(body: bytes, *, routing_key: str, message_id: str, headers: dict[str, Any]) -> None:
    """Publish one message and wait for the broker's confirm; raises when it was not taken. A kept
    connection that fails (the broker restarted, an idle connection cut) is replaced once at once,
    rather than costing the event a retry's delay."""
    link, fresh = _link()
    try:
        _send(link, body, routing_key, message_id, headers)
        return
    except Exception:
        drop()
        if fresh:
            raise
    link, _ = _link()
    try:
        _send(link, body, routing_key, message_id, headers)
    except Exception:
        drop()
        raise
