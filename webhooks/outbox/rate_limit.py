"""Per-webhook rate limits (`rateLimit`, deliveries per second): one window per webhook shared by every
worker process, so however many drains send to it at once it never receives more than its limit in any
one second.

The window counts sends from the moment one is allowed until its POST has ended (a send on its way
counts until then): a new send is allowed only while fewer than `limit` sends of the webhook are on
their way or ended less than a second ago. Any N requests a receiver sees within one second were each
on their way, or ended, less than a second before the last of them was allowed, so N <= limit whatever
the network's and the workers' delays; a limit measured at the start of each send alone would let a slow
first request and a fast next one arrive closer together than it allowed.

A drain asks before each POST (webhooks.outbox.deliveries); when the window is full it waits, up to
PONTE_WEBHOOK_RATE_LIMIT_MAX_WAIT_SECONDS, or gives the rest of its batch back for later: deferred, not
failed, no attempt used.

The window lives in Redis (a sorted set per webhook, changed by Lua scripts on Redis's own clock) when
REDIS_URL is set; otherwise, or while Redis is away, in the database (`WebhookSend` rows counted under
the webhook's `WebhookPace` row lock), which every worker of the embedded default shares too.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import redis
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.breaker import Breaker
from webhooks.models import Delivery, WebhookPace, WebhookSend

logger = logging.getLogger(__name__)

MICROS = 1_000_000
# The window, a hair over one second: the receiver's second and ours are measured on different clocks.
WINDOW_US = 1_010_000
# A send on its way counts until its POST's timeout and this much more, unless it ends (a killed worker's).
IN_FLIGHT_SPARE_US = 5 * MICROS

# KEYS[1]: the webhook's sends (member: send id, score: end time in µs on Redis's clock, or the time
# it will be given up while on its way). ARGV: limit, send id, in-flight µs, window µs.
# Returns {1, 0} with the send counted, or {0, wait µs until the oldest send leaves the window}.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + window - now}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], math.floor((tonumber(ARGV[3]) + window) / 1000) + 1000)
return {1, 0}
"""
# KEYS[1]: the webhook's sends; ARGV[1]: the send id. Its POST ended now.
_RELEASE = """
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], 'XX', tonumber(t[1]) * 1000000 + tonumber(t[2]), ARGV[1])
return 1
"""

_redis_breaker = Breaker("Rate limit Redis")
_local = threading.local()
REDIS_UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)


@dataclass(frozen=True)
class Ticket:
    """A send counted in its webhook's window: `release` it when its POST has ended."""

    webhook_id: str
    send_id: str
    in_redis: bool


# --- Redis -----------------------------------------------------------------------------------------


def _scripts() -> tuple[Any, Any]:
    """The scripts on this thread's client of REDIS_URL (kept per thread and URL)."""
    if getattr(_local, "url", None) != settings.REDIS_URL:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=0.5, socket_timeout=2)
        _local.scripts = (client.register_script(_ACQUIRE), client.register_script(_RELEASE))
        _local.url = settings.REDIS_URL
    return _local.scripts


def _key(webhook_id: str) -> str:
    return f"ponte:webhooks:rate:{webhook_id}"


def _acquire_redis(webhook_id: str, limit: int, in_flight: int) -> Ticket | int | None:
    """A ticket, or µs until a place frees; None when Redis cannot answer (the database decides)."""
    if not _redis_breaker.available():
        return None
    send_id = uuid.uuid4().hex
    try:
        granted, wait = _scripts()[0](keys=[_key(webhook_id)], args=[limit, send_id, in_flight, WINDOW_US])
    except REDIS_UNREACHABLE as error:
        _redis_breaker.failed(error)
        logger.warning("Rate limits fall back to the database while Redis is away")
        return None
    _redis_breaker.succeeded()
    return Ticket(webhook_id, send_id, in_redis=True) if granted else max(0, int(wait))


# --- The database ----------------------------------------------------------------------------------


def _acquire_db(webhook_id: str, limit: int, in_flight: int) -> Ticket | int:
    """As in Redis, under the webhook's `WebhookPace` row: the UPDATE that touches it locks the row on
    PostgreSQL and takes SQLite's write lock, so the count and the insert that follow are one step."""
    now = int(time.time() * MICROS)
    with transaction.atomic():
        locked = WebhookPace.objects.filter(webhook_id=webhook_id).update(taken_at_us=now)
        if not locked:  # the webhook's first limited send: its row, then the count
            WebhookPace.objects.bulk_create([WebhookPace(webhook_id=webhook_id)], ignore_conflicts=True)
            WebhookPace.objects.filter(webhook_id=webhook_id).update(taken_at_us=now)
        sends = WebhookSend.objects.filter(webhook_id=webhook_id)
        sends.filter(ends_at_us__lte=now - WINDOW_US).delete()
        ends = list(sends.order_by("ends_at_us").values_list("ends_at_us", flat=True)[:limit])
        if len(ends) >= limit:
            return max(0, ends[0] + WINDOW_US - now)
        send = WebhookSend.objects.create(webhook_id=webhook_id, ends_at_us=now + in_flight)
    return Ticket(webhook_id, str(send.pk), in_redis=False)


# --- Sending ---------------------------------------------------------------------------------------


def acquire(webhook_id: str, limit: int, *, timeout_seconds: float) -> Ticket | float:
    """Count a send of the webhook in its window: a ticket, or the seconds until a place frees (nothing
    counted). `timeout_seconds`: the POST's, for how long a send on its way may count."""
    in_flight = int(timeout_seconds * MICROS) + IN_FLIGHT_SPARE_US
    answer = _acquire_redis(webhook_id, limit, in_flight) if settings.REDIS_URL else None
    if answer is None:
        answer = _acquire_db(webhook_id, limit, in_flight)
    return answer if isinstance(answer, Ticket) else answer / MICROS


def release(ticket: Ticket | None) -> None:
    """The ticket's POST has ended: it counts from now until it leaves the window."""
    if ticket is None:
        return
    if ticket.in_redis:
        try:
            _scripts()[1](keys=[_key(ticket.webhook_id)], args=[ticket.send_id])
            return
        except REDIS_UNREACHABLE as error:  # it stays counted until its in-flight time: slower, not faster
            _redis_breaker.failed(error)
            return
    WebhookSend.objects.filter(pk=int(ticket.send_id)).update(ends_at_us=int(time.time() * MICROS))


def pace(delivery: Any) -> Ticket | float | None:
    """Before a delivery's POST: None (no limit) or a ticket to release after the POST, once its
    webhook's window has a place, waiting up to PONTE_WEBHOOK_RATE_LIMIT_MAX_WAIT_SECONDS for one; or
    the seconds after which to look again when none frees by then (nothing counted)."""
    limit = delivery.rate_limit  # read with the claim
    if not limit or delivery.webhook_id is None:
        return None
    deadline = time.monotonic() + float(settings.PONTE_WEBHOOK_RATE_LIMIT_MAX_WAIT_SECONDS)
    while True:
        answer = acquire(delivery.webhook_id, limit, timeout_seconds=delivery.timeout_seconds)
        if isinstance(answer, Ticket):
            return answer
        if time.monotonic() + answer > deadline:
            return max(0.05, min(answer, WINDOW_US / MICROS))
        time.sleep(answer + 0.001)


def defer(deliveries: Iterable[Any], *, token: str, seconds: float) -> None:
    """Give claimed deliveries back to wait `seconds` for their webhook's pace: not an attempt (their
    count and status stay as they were), due again then. Only rows this claim still holds."""
    rows = list(deliveries)
    due = timezone.now() + timedelta(seconds=seconds)
    for status, attempted in ((Delivery.Status.PENDING, False), (Delivery.Status.FAILED, True)):
        ids = [d.pk for d in rows if (d.attempt_count > 0) == attempted]
        if ids:
            Delivery.objects.filter(pk__in=ids, claim_token=token, status=Delivery.Status.SENDING).update(
                status=status, claimed_at=None, claim_token="", next_attempt_at=due
            )
