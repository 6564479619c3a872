"""Ordered delivery per chat for webhooks whose `ordering` is "fifo" (issue 42, docs/decisions/0023).

A fifo webhook's delivery of an event in a chat is written `queued` (not claimable, not counted) when an
earlier delivery of the same webhook and chat is unfinished; the chat's other events wait behind it, other
chats do not. When a delivery is delivered or dead-lettered, the oldest queued one of its webhook and chat
(by the event's per-chat sequence) is released to pending; the sweeper releases what a race left queued
(a delivery finished between emit()'s check and its commit). The claim and its indexes know nothing of
this: a queued row is simply not among the rows they read. Events without a chat are never queued.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from webhooks.models import Delivery, Event
from webhooks.outbox.hints import enqueue_on_commit

logger = logging.getLogger(__name__)

# A delivery in one of these holds its chat's later deliveries back.
UNFINISHED = [
    Delivery.Status.PENDING,
    Delivery.Status.FAILED,
    Delivery.Status.SENDING,
    Delivery.Status.QUEUED,
]
ON_ITS_WAY = [Delivery.Status.PENDING, Delivery.Status.FAILED, Delivery.Status.SENDING]

# (webhook id, session id, chat)
Chat = tuple[str, Any, str]


def _of_chat(deliveries: Any, webhook_id: str, session_id: Any, chat: str) -> Any:
    return deliveries.filter(webhook_id=webhook_id, event__session_id=session_id, event__chat=chat)


def busy_webhooks(webhook_ids: list[str], *, session_id: Any, chat: str) -> set[str]:
    """Which of `webhook_ids` have an unfinished delivery in the chat; emit() calls it under the chat's
    sequence counter lock, so two events of one chat are checked one after the other."""
    unfinished = Delivery.objects.filter(
        webhook_id__in=webhook_ids, status__in=UNFINISHED, event__session_id=session_id, event__chat=chat
    )
    return set(unfinished.values_list("webhook_id", flat=True).distinct())


def queue_behind(event: Event, deliveries: list[Delivery], fifo: set[str]) -> None:
    """Mark `deliveries` of fifo webhooks (ids in `fifo`) queued when their chat has an unfinished
    delivery of the same webhook (emit(), once the event is numbered and the chat locked)."""
    waiting = [d for d in deliveries if d.webhook_id in fifo and d.status == Delivery.Status.PENDING]
    if not waiting or not event.chat:
        return
    busy = busy_webhooks([d.webhook_id for d in waiting], session_id=event.session_id, chat=event.chat)
    for delivery in waiting:
        if delivery.webhook_id in busy:
            delivery.status = Delivery.Status.QUEUED


def chats_of(delivery_ids: Iterable[int]) -> set[Chat]:
    """The (webhook, session, chat) of each delivery that has a webhook and a chat."""
    rows = Delivery.objects.filter(pk__in=list(delivery_ids), webhook__isnull=False).exclude(event__chat="")
    return set(rows.values_list("webhook_id", "event__session_id", "event__chat"))


def chat_release(chat: Chat) -> int | None:
    """Release the oldest queued delivery of the chat to pending (hinted on commit) unless one of its
    deliveries is still on its way; its id, or None."""
    webhook_id, session_id, chat_id = chat
    with transaction.atomic():
        if _of_chat(Delivery.objects.filter(status__in=ON_ITS_WAY), *chat).exists():
            return None
        queued = _of_chat(
            Delivery.objects.filter(status=Delivery.Status.QUEUED), webhook_id, session_id, chat_id
        )
        following = queued.order_by("event__sequence", "pk").values_list("pk", "target_url").first()
        if following is None:
            return None
        released = Delivery.objects.filter(pk=following[0], status=Delivery.Status.QUEUED).update(
            status=Delivery.Status.PENDING, next_attempt_at=timezone.now()
        )
        if not released:
            return None
        enqueue_on_commit([following])
    return following[0]


def finished_release(delivery_ids: list[int]) -> list[int]:
    """After deliveries of fifo webhooks were delivered or dead-lettered: release the next of each chat."""
    released = [chat_release(chat) for chat in chats_of(delivery_ids)]
    return [pk for pk in released if pk is not None]


def held_requeue(*, webhook_id: str, url: str, attempts: int) -> int:
    """A fifo webhook enabled again: its held deliveries that have a chat are queued (to its current URL)
    and each chat's oldest released, so they go out in order too (webhooks.outbox.disable); how many."""
    held = Delivery.objects.filter(webhook_id=webhook_id, status=Delivery.Status.HELD).exclude(event__chat="")
    ids = list(held.values_list("pk", flat=True))
    Delivery.objects.filter(pk__in=ids).update(
        status=Delivery.Status.QUEUED, target_url=url, max_attempts=attempts
    )
    for chat in chats_of(ids):
        chat_release(chat)
    return len(ids)


def queued_sweep(*, older_than: timedelta, limit: int) -> int:
    """The sweeper's part: release the chats whose queued deliveries wait longer than `older_than` with
    nothing on its way before them (a race between emit() and a release); how many were released."""
    old = Delivery.objects.filter(status=Delivery.Status.QUEUED, created_at__lte=timezone.now() - older_than)
    chats = set(old.values_list("webhook_id", "event__session_id", "event__chat")[:limit])
    released = [chat_release(chat) for chat in chats if chat[0] is not None]
    count = sum(1 for pk in released if pk is not None)
    if count:
        logger.info("Sweeper released %d queued fifo deliveries", count)
    return count
