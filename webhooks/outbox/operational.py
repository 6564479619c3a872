"""Operational events: what happens to a registered webhook, delivered to the account's other webhooks
that subscribe to it (Svix's operational webhooks), besides the e-mail and the account area's banner.

- `webhook.disabled`: a webhook was disabled (by auto-disable after failing for long, or by its owner),
  with the reason (webhooks.outbox.disable);
- `webhook.dead_letter`: a delivery became a dead letter after its last attempt, with the delivery's id
  (webhooks.outbox.deliveries).

Each goes through the outbox like any event (signed, retried on the receiving webhook's schedule, in its
delivery log, filtered by its `filter`), as one event on the session of the webhook it is about. Never to
that webhook itself, and a dead letter of an operational event tells no one, so two failing webhooks
cannot keep telling each other.
"""

from __future__ import annotations

import time
from typing import Any

from django.db import transaction
from django.utils import timezone

from webhooks.body_filters import filter_matches
from webhooks.catalogue import OPERATIONAL
from webhooks.models import Delivery, Event, Webhook
from webhooks.outbox.hints import enqueue_on_commit
from webhooks.outbox.policy import REGISTERED
from webhooks.payloads import envelope

DISABLED = "webhook.disabled"
DEAD_LETTER = "webhook.dead_letter"


def _listeners(source: Webhook, name: str) -> list[Webhook]:
    """The account's other webhooks subscribed to `name` (an account has a handful of webhooks: read them
    all rather than query into a JSON list, which SQLite cannot index either)."""
    hooks = Webhook.objects.filter(account_id=source.account_id).exclude(pk=source.pk)
    return [hook for hook in hooks if name in (hook.events or [])]


@transaction.atomic
def operational_send(*, source: Webhook, name: str, data: dict[str, Any]) -> int:
    """Write the operational event `name` about `source` and a delivery of it to each listener whose
    filter it meets (held for a disabled one, as any event); hinted on commit. How many deliveries."""
    listeners = _listeners(source, name)
    if not listeners:
        return 0
    now_ms = int(time.time() * 1000)
    event = Event.objects.create(
        session_id=source.session_id, name=name, data=data, event_ms=now_ms, received_at_ms=now_ms
    )
    payload = envelope(event, None)
    now = timezone.now()
    deliveries = [
        Delivery(
            kind=Delivery.Kind.REGISTERED,
            event=event,
            session_id=hook.session_id,
            webhook=hook,
            target_url=hook.url,
            payload=payload,
            status=Delivery.Status.PENDING if hook.status == Webhook.Status.ACTIVE else Delivery.Status.HELD,
            max_attempts=hook.attempts,
            timeout_seconds=REGISTERED.timeout_seconds,
            next_attempt_at=now,
        )
        for hook in listeners
        if filter_matches(hook.filter, payload)
    ]
    Delivery.objects.bulk_create(deliveries)
    hinted = [(d.pk, d.target_url) for d in deliveries if d.status == Delivery.Status.PENDING]
    enqueue_on_commit(hinted)
    return len(deliveries)


def webhook_disabled_send(webhook: Webhook) -> int:
    """Tell the account's other webhooks that `webhook` was disabled, and why."""
    data = {
        "webhookId": webhook.pk,
        "sessionId": str(webhook.session_id),
        "url": webhook.url,
        "reason": webhook.disabled_reason,
        "disabledAt": webhook.disabled_at.isoformat() if webhook.disabled_at else None,
    }
    return operational_send(source=webhook, name=DISABLED, data=data)


def dead_letters_send(dead: list[dict[str, Any]]) -> int:
    """Tell the other webhooks of each dead letter's account about it. `dead`: one dict per dead letter
    of a registered webhook, {deliveryId, eventId, event, webhookId, attempts, lastStatusCode, lastError}.
    Dead letters of operational events are left out (see the module's docstring)."""
    told = 0
    wanted = [item for item in dead if item["webhookId"] and item["event"] not in OPERATIONAL]
    hooks = Webhook.objects.in_bulk([item["webhookId"] for item in wanted])
    for item in wanted:
        source = hooks.get(item["webhookId"])
        if source is not None:
            data = {**item, "sessionId": str(source.session_id), "deadAt": timezone.now().isoformat()}
            told += operational_send(source=source, name=DEAD_LETTER, data=data)
    return told
