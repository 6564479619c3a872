"""emit(): the outbox's entry point, where every event of every session comes in (registered webhooks'
records are written by webhooks.registered.services)."""

from __future__ import annotations

import functools
import time
from typing import Any
from uuid import UUID

from django.db import connection, transaction

from messaging.engines.events import EngineEvent
from webhooks import lookups
from webhooks.body_filters import filter_matches
from webhooks.catalogue import canonical_event
from webhooks.instance import services as instance
from webhooks.live import broadcast
from webhooks.models import Delivery, Event
from webhooks.outbox import deliveries as outbox
from webhooks.outbox import fifo as outbox_fifo
from webhooks.outbox.policy import REGISTERED
from webhooks.outbox.store import Targets, store
from webhooks.payloads import envelope
from webhooks.stream import jobs as stream


def _now_ms() -> int:
    return int(time.time() * 1000)


def _registered_deliveries(
    event: Event,
    webhooks: tuple[tuple[str, str, tuple[str, ...], int, bool, Any, bool], ...],
    typed: EngineEvent | None,
) -> list[Delivery]:
    """One delivery per webhook of the session listening to the event (names are stored canonical)
    whose filter the body meets (webhooks.body_filters: no row, no count otherwise), not yet written;
    a disabled webhook's is held (webhooks.outbox.disable: kept, not attempted)."""
    hooks = [hook for hook in webhooks if event.name in hook[2]]
    if not hooks:
        return []
    payload = envelope(event, typed)
    deliveries = []
    for hook_id, url, _events, attempts, active, conditions, _fifo in hooks:
        if not filter_matches(conditions, payload):
            continue
        delivery = Delivery(
            kind=Delivery.Kind.REGISTERED,
            event=event,
            session_id=event.session_id,
            webhook_id=hook_id,
            target_url=url,
            payload=payload,
            status=Delivery.Status.PENDING if active else Delivery.Status.HELD,
            max_attempts=attempts,
            timeout_seconds=REGISTERED.timeout_seconds,
            next_attempt_at=event.created_at,
        )
        deliveries.append(delivery)  # written with the event (emit)
    return deliveries


def emit(
    *,
    session_id: UUID | str,
    name: str = "",
    data: dict[str, Any] | None = None,
    chat: str = "",
    event_ms: int | None = None,
    event: EngineEvent | None = None,
) -> Event:
    """Record that something happened on a session, in the caller's transaction.

    The messaging app's event sink: `MESSAGING_EVENT_SINK` names this function, and
    messaging.services.events calls it with the engine's typed `event` (its name and wire form are
    stored; the bodies are rendered from the typed event as it is). Events that come from no engine
    (the gateway's own, tests) give `name` and `data` instead. `event_ms` is when the platform says it
    happened (default: when it arrives here). Aliases are stored under their canonical name.
    Deliveries to matching targets are written in the same transaction and enqueued on commit, so a
    rolled-back caller sends nothing, and a lost enqueue is found again by the sweeper. Every event,
    with or without targets, is also published on commit to the live socket (`/ws`,
    webhooks.live.broadcast) and, with PONTE_EVENT_STREAM_URL, written as a job of the event stream
    (RabbitMQ, webhooks.stream), published from the outbox.

    What it needs of the session (its webhooks, instance webhook, account) is kept per process
    (webhooks.lookups). Called outside a transaction, it opens its own, except where the writes are one
    statement on PostgreSQL (the event with its sequence and registered deliveries, no instance
    webhook): one statement is atomic by itself, and BEGIN and COMMIT would double its round trips.
    """
    if event is not None:
        name, data = event.name, event.to_data()
    if not name:
        raise ValueError("emit() needs an event or a name")
    received = _now_ms()
    targets = lookups.session_targets.get(str(session_id))
    args = (targets, session_id, name, data or {}, chat, event_ms, received, event)
    if connection.in_atomic_block:  # the caller's transaction (no savepoint: it rolls back as one)
        return _emit(*args)
    alone = not targets.instance_webhooks_enabled and not stream.enabled() and not _fifo_ids(targets, chat)
    if alone and store().event_insert_is_atomic:
        return _emit(*args)  # one statement (webhooks.outbox.store_pg): atomic by itself
    with transaction.atomic():
        return _emit(*args)


def _emit(
    targets: Targets,
    session_id: UUID | str,
    name: str,
    data: dict[str, Any],
    chat: str,
    event_ms: int | None,
    received: int,
    typed: EngineEvent | None,
) -> Event:
    event = Event(
        session_id=session_id,
        name=canonical_event(name) or name,
        data=data,
        chat=chat,
        event_ms=event_ms or received,
        received_at_ms=received,
    )
    deliveries = _registered_deliveries(event, targets.webhooks, typed)
    # The event, numbered next in its chat, and its registered deliveries: one statement on PostgreSQL,
    # unless a fifo webhook's delivery may have to queue behind the chat's earlier one (outbox.fifo).
    fifo = _fifo_ids(targets, chat)
    numbered = functools.partial(outbox_fifo.queue_behind, deliveries=deliveries, fifo=fifo) if fifo else None
    store().event_insert(event, deliveries, numbered=numbered)
    if targets.instance_webhooks_enabled:
        deliveries += instance.instance_deliveries(event, typed)  # the session's instance webhook
    if stream.enabled():  # the event stream (RabbitMQ): the registered-webhook body, from the outbox
        stream.job_record(event, envelope(event, typed))
    # Held ones wait for an enable, queued ones for the chat's earlier delivery.
    hinted = [d for d in deliveries if d.status not in (Delivery.Status.HELD, Delivery.Status.QUEUED)]
    outbox.enqueue_on_commit([(delivery.pk, delivery.target_url) for delivery in hinted])
    broadcast.publish_on_commit(event, account_id=targets.account_id)  # the live socket (/ws)
    return event


def _fifo_ids(targets: Targets, chat: str) -> set[str]:
    """The session's fifo webhooks, when the event has a chat to keep in order (events without one are
    never held back)."""
    return {hook[0] for hook in targets.webhooks if hook[6]} if chat else set()


# --- Registered webhooks -------------------------------------------------------------------------
