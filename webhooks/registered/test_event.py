"""The `webhook.test` event: one delivery to one webhook, on demand, to check a receiver.

It goes through the outbox like any other event (signed, retried on the webhook's schedule, in the
delivery log, a dead letter when every attempt fails), but only to the webhook it was asked for: other
webhooks of the session do not get it, and the live socket does not carry it.
"""

from __future__ import annotations

import time

from django.db import transaction
from django.utils import timezone

from core.errors import Conflict
from webhooks.catalogue import TEST_EVENT
from webhooks.models import Delivery, Event, Webhook
from webhooks.outbox.hints import enqueue_on_commit
from webhooks.outbox.policy import REGISTERED
from webhooks.payloads import envelope

__all__ = ["TEST_EVENT", "WebhookDisabled", "require_active", "webhook_test_send"]


class WebhookDisabled(Conflict):
    code = "WEBHOOK_DISABLED"
    gateway_text = "Webhook disabled"
    default_message = 'The webhook is disabled; enable it with PATCH {"status": "active"} first.'


def require_active(webhook: Webhook) -> None:
    if webhook.status != Webhook.Status.ACTIVE:
        raise WebhookDisabled()


@transaction.atomic
def webhook_test_send(*, webhook: Webhook) -> Delivery:
    """Write a `webhook.test` event for the webhook's session and one delivery of it to this webhook."""
    require_active(webhook)
    now_ms = int(time.time() * 1000)
    event = Event.objects.create(
        session_id=webhook.session_id,
        name=TEST_EVENT,
        data={"webhookId": webhook.pk, "message": "A test event sent on request; nothing happened."},
        event_ms=now_ms,
        received_at_ms=now_ms,
    )
    delivery = Delivery.objects.create(
        kind=Delivery.Kind.REGISTERED,
        event=event,
        session_id=webhook.session_id,
        webhook=webhook,
        target_url=webhook.url,
        payload=envelope(event, None),
        max_attempts=webhook.attempts,
        timeout_seconds=REGISTERED.timeout_seconds,
        next_attempt_at=timezone.now(),
    )
    enqueue_on_commit([(delivery.pk, delivery.target_url)])
    return delivery
