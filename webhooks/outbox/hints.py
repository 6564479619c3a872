"""The deliveries' hints: the messages that tell a worker to drain a delivery's target.

A hint carries a delivery id and its target URL; the `Delivery` row is the truth (webhooks.outbox).
What the job system's hints do (jobs.hints: by task name, the broker's breaker; jobs.wakeups: a hint due
now on a Redis list a worker's listener pops, a Celery message otherwise) plus the target's hint flag
(webhooks.outbox.throttle: one hint waiting per target is enough) and, when the broker comes back, a
sweep at once.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable

from celery import signature
from django.db import transaction

from jobs import hints, wakeups
from jobs.hints import broker_breaker
from webhooks.outbox import throttle

logger = logging.getLogger(__name__)

# The Celery task names of webhooks.tasks.
DELIVER_TASK = "webhooks.deliver"
SWEEP_TASK = "webhooks.sweep_deliveries"


def enqueue(delivery_id: int, *, countdown: float = 0, target_url: str = "") -> bool:
    """Publish a hint for one delivery (with its target, which spares the worker a lookup). A failed
    publish is logged, not raised: the sweeper finds it."""
    if not hints.publish(
        DELIVER_TASK, [delivery_id, target_url] if target_url else [delivery_id], countdown=countdown
    ):
        return False
    if broker_breaker.succeeded():
        sweep_at_once()  # back from an outage: hint what waited meanwhile now rather than at the next beat
    return True


def sweep_at_once() -> None:
    """Ask a worker to sweep the deliveries now, grace-free (after an outage of the broker or of the
    wake-up lists); a failed publish is left to beat's next sweep."""
    with contextlib.suppress(Exception):
        signature(SWEEP_TASK, kwargs={"grace_seconds": 0}).apply_async()


def _publish(per_target: dict[str, int], countdown: float, force: bool) -> None:
    for target_url, delivery_id in per_target.items():
        if countdown > 0:  # a hint due later: the flag speaks only of hints waiting to run now
            enqueue(delivery_id, countdown=countdown, target_url=target_url)
        elif not force and _woken_once(delivery_id, target_url) is not None:
            continue  # the flag raised and the wake-up pushed, or a hint waits already
        elif throttle.hint_wanted(target_url, force=force) and not _wake(delivery_id, target_url):
            throttle.hint_failed(target_url)


def _woken_once(delivery_id: int, target_url: str) -> bool | None:
    """The target's flag and its wake-up in one round trip (jobs.wakeups.push_flagged); None when there are
    no lists or Redis is away: then the flag and the hint one after the other, as below. (The lists are
    in the Redis cache, which every process shares: the flag is kept wherever there are lists.)"""
    return wakeups.push_flagged(
        DELIVER_TASK,
        [delivery_id, target_url],
        flag=throttle.hint_flag(target_url),
        seconds=throttle.HINT_FLAG_SECONDS,
    )


def _wake(delivery_id: int, target_url: str) -> bool:
    """A hint due now: on the wake-up list when there is one (jobs.wakeups), else a Celery message."""
    return wakeups.push(DELIVER_TASK, [delivery_id, target_url]) or enqueue(
        delivery_id, target_url=target_url
    )


def enqueue_on_commit(
    deliveries: Iterable[tuple[int, str]], *, countdown: float = 0, force: bool = False
) -> None:
    """Hint the targets of `(delivery id, target URL)` pairs once the transaction commits: one hint per
    target, as its drain sends everything due there."""
    per_target: dict[str, int] = {}
    for delivery_id, target_url in deliveries:
        per_target.setdefault(target_url, delivery_id)
    if per_target:
        transaction.on_commit(lambda: _publish(per_target, countdown, force), robust=True)
