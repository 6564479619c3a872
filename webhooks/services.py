"""Writes of the webhooks app: emit() (the outbox's entry point) and registered webhooks."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.utils import timezone

from accounts.models import Account
from config.errors import SessionNotFound, ValidationFailed, WebhookLimitReached
from config.unset import UNSET
from messaging.engines.events import EngineEvent
from messaging.models import Session
from webhooks import broadcast, instance, lookups
from webhooks.catalogue import canonical_event, canonical_events
from webhooks.custom_headers import headers_clean
from webhooks.disable import webhook_disable, webhook_enable
from webhooks.models import Delivery, Event, Webhook
from webhooks.outbox import deliveries as outbox
from webhooks.outbox import sql
from webhooks.outbox.policy import REGISTERED, target_url_clean
from webhooks.outbox.posting import WEBHOOK_DELETED
from webhooks.payloads import envelope


def _now_ms() -> int:
    return int(time.time() * 1000)


def _registered_deliveries(
    event: Event, webhooks: tuple[tuple[str, str, tuple[str, ...], int], ...], typed: EngineEvent | None
) -> list[Delivery]:
    """One delivery per webhook of the session listening to the event (names are stored canonical),
    not yet written."""
    hooks = [
        (hook_id, url, retry_count) for hook_id, url, events, retry_count in webhooks if event.name in events
    ]
    if not hooks:
        return []
    payload = envelope(event, typed)
    deliveries = []
    for hook_id, url, retry_count in hooks:
        delivery = Delivery(
            kind=Delivery.Kind.REGISTERED,
            event=event,
            session_id=event.session_id,
            webhook_id=hook_id,
            target_url=url,
            payload=payload,
            max_attempts=retry_count,
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
    webhooks.broadcast).

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
    if connection.vendor == "postgresql" and not targets.instance_webhooks_enabled:
        return _emit(*args)  # one statement (webhooks.outbox.sql.event_insert): atomic by itself
    with transaction.atomic():
        return _emit(*args)


def _emit(
    targets: sql.Targets,
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
    # The event, numbered next in its chat, and its registered deliveries: one statement on PostgreSQL.
    sql.event_insert(event, deliveries)
    if targets.instance_webhooks_enabled:
        deliveries += instance.instance_deliveries(event, typed)  # the session's instance webhook
    outbox.enqueue_on_commit([(delivery.pk, delivery.target_url) for delivery in deliveries])
    broadcast.publish_on_commit(event, account_id=targets.account_id)  # the live socket (/ws)
    return event


# --- Registered webhooks -------------------------------------------------------------------------


def _clean_retry_count(value: int | None) -> int:
    if value is None:
        return Webhook.DEFAULT_RETRY_COUNT
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationFailed("retryCount: must be a whole number")
    if not Webhook.MIN_RETRY_COUNT <= value <= Webhook.MAX_RETRY_COUNT:
        raise ValidationFailed(
            f"retryCount: must be between {Webhook.MIN_RETRY_COUNT} and {Webhook.MAX_RETRY_COUNT}"
        )
    return value


def _session_of(account: Account, session_id: UUID | str) -> Session:
    try:
        return Session.objects.get(account=account, pk=UUID(str(session_id)))
    except (ValueError, Session.DoesNotExist):
        raise SessionNotFound() from None


@transaction.atomic
def webhook_create(
    *,
    account: Account,
    session_id: UUID | str,
    url: str,
    events: list[str],
    secret: str = "",
    retry_count: int | None = None,
    headers: dict[str, str] | None = None,
) -> Webhook:
    """Register a webhook on one of the account's sessions, within the plan's webhook cap."""
    # Lock the account row so two concurrent creates cannot both pass the cap.
    account = Account.objects.select_for_update().select_related("plan").get(pk=account.pk)
    session = _session_of(account, session_id)
    webhook = Webhook(
        account=account,
        session=session,
        url=target_url_clean(url),
        secret=secret,
        events=canonical_events(events),
        retry_count=_clean_retry_count(retry_count),
        headers=headers_clean(headers) or None,
    )
    cap = account.plan.max_webhooks
    if cap is not None and Webhook.objects.filter(account=account).count() >= cap:
        raise WebhookLimitReached(f"The {account.plan.name} plan allows {cap} webhook(s).")
    webhook.save(force_insert=True)
    return webhook


@transaction.atomic
def webhook_update(
    *,
    webhook: Webhook,
    url: str = UNSET,
    secret: str = UNSET,
    events: list[str] = UNSET,
    retry_count: int | None = UNSET,
    headers: dict[str, str] | None = UNSET,
    status: str = UNSET,
) -> Webhook:
    """Patch a webhook. Deliveries still waiting follow a new URL, secret, headers and attempt count.

    A new `secret` replaces the old one at once (secret/rotate keeps both for an overlap); `status`
    "active" enables a disabled webhook again (webhooks.disable), "disabled" stops its deliveries."""
    webhook = Webhook.objects.select_for_update().get(pk=webhook.pk)
    if url is not UNSET:
        webhook.url = target_url_clean(url)
    if secret is not UNSET:
        webhook.secret = secret
        webhook.previous_secret, webhook.previous_secret_expires_at = "", None
    if headers is not UNSET:
        webhook.headers = headers_clean(headers) or None
    if events is not UNSET:
        webhook.events = canonical_events(events)
    if retry_count is not UNSET:
        webhook.retry_count = _clean_retry_count(retry_count)
    webhook.updated_at = timezone.now()
    webhook.save()
    if status is not UNSET:
        _status_set(webhook, status)
    waiting = Delivery.objects.filter(
        webhook=webhook, status__in=[Delivery.Status.PENDING, Delivery.Status.FAILED]
    )
    waiting.update(target_url=webhook.url, max_attempts=webhook.retry_count)
    return webhook


def _status_set(webhook: Webhook, status: str) -> None:
    if status not in Webhook.Status.values:
        raise ValidationFailed(f"status: must be one of {', '.join(Webhook.Status.values)}")
    if status == webhook.status:
        return
    if status == Webhook.Status.ACTIVE:
        webhook_enable(webhook=webhook)
        webhook.save()
    else:
        webhook_disable(webhook_id=webhook.pk, reason="Disabled by the customer.", tell=False)
        webhook.refresh_from_db()


@transaction.atomic
def webhook_delete(*, webhook: Webhook) -> None:
    """Delete a webhook; its deliveries still waiting become dead letters (kept 7 days, not sent)."""
    now = timezone.now()
    Delivery.objects.filter(
        webhook=webhook, status__in=[Delivery.Status.PENDING, Delivery.Status.FAILED]
    ).update(status=Delivery.Status.DEAD, dead_at=now, last_error=WEBHOOK_DELETED)
    webhook.delete()
