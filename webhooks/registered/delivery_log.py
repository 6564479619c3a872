"""The delivery log of registered webhooks over the gateway: reads of a key's deliveries and dead
letters, and their resends (`/gateway/webhooks/{id}/deliveries`, `/gateway/deliveries/{id}`,
`/gateway/dead-letters`).

A key sees the deliveries of its own account's sessions and, when it is limited to some sessions, of
those only; anything else is as unknown as a missing row (404), so ids of other accounts reveal
nothing. Resends go through the one resend of the outbox (webhooks.outbox.deliveries.deliveries_resend),
as the account area's and the admin's do: the webhook's current URL, secret and headers, the same
`webhook-id`, one attempt and no new retry chain.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from accounts.models import ApiKey
from core.errors import Conflict, ValidationFailed
from messaging.errors import SessionNotFound
from messaging.models import Session
from webhooks.errors import DeliveryNotFound, WebhookNotFound
from webhooks.models import Delivery, DeliveryAttempt, Webhook
from webhooks.outbox.deliveries import RESENDABLE, deliveries_resend
from webhooks.registered import replay
from webhooks.registered.test_event import require_active

# One bulk resend by ids names at most this many deliveries (the replay's own cap bounds the other form).
MAX_RESEND_IDS = 1000
DISPATCH_PREFIX = "msg_"
# Delivery ids are 64-bit: a larger one is refused (a body) or not found (a path), never sent to the database.
MAX_DELIVERY_ID = 2**63 - 1


class DeliveryInProgress(Conflict):
    code = "DELIVERY_IN_PROGRESS"
    gateway_text = "Delivery in progress"
    default_message = "The delivery is still waiting for an attempt; only delivered and dead ones are resent."


class WebhookDeleted(Conflict):
    code = "WEBHOOK_DELETED"
    gateway_text = "Webhook deleted"
    default_message = "The delivery's webhook was deleted: there is nothing left to send it with."


def _allowed(key: ApiKey) -> list[str] | None:
    return [str(s) for s in key.allowed_sessions] if key.allowed_sessions else None


def _rows(deliveries: QuerySet[Delivery]) -> QuerySet[Delivery]:
    """Newest first, with the event's name and without the bodies (the detail reads the payload). The
    event comes by select_related, which a page's count() leaves out: counting needs no join."""
    rows = deliveries.select_related("event").defer("payload", "event__data")
    return rows.order_by("-created_at", "-id")


def deliveries_of_key(*, key: ApiKey) -> QuerySet[Delivery]:
    """The registered-webhook deliveries this key may see (its account's sessions, its allowed ones)."""
    deliveries = Delivery.objects.filter(kind=Delivery.Kind.REGISTERED, session__account_id=key.account_id)
    allowed = _allowed(key)
    if allowed is not None:
        deliveries = deliveries.filter(session_id__in=allowed)
    return _rows(deliveries)


def deliveries_of_webhook(*, webhook: Webhook) -> QuerySet[Delivery]:
    """One webhook's deliveries (found with webhook_visible, so the key may see them all): by the
    webhook alone, which the (webhook, created_at) index serves in order, page by page."""
    return _rows(Delivery.objects.filter(webhook=webhook))


def webhook_visible(*, key: ApiKey, webhook_id: str) -> Webhook:
    """One of the account's webhooks on a session the key may use; any other is not found (404)."""
    webhook = Webhook.objects.filter(account_id=key.account_id, pk=webhook_id).first()
    if webhook is None or not key.allows_session(webhook.session_id):
        raise WebhookNotFound()
    return webhook


def session_visible(*, key: ApiKey, session_id: str) -> str:
    """A session id of the account the key may use (the filters' `sessionId`); else 404."""
    try:
        parsed = UUID(session_id)
    except ValueError:
        raise SessionNotFound() from None
    found = Session.objects.filter(account_id=key.account_id, pk=parsed).exists()
    if not found or not key.allows_session(parsed):
        raise SessionNotFound()
    return str(parsed)


def delivery_get(*, key: ApiKey, delivery_id: str) -> Delivery:
    """One delivery the key may see, by its id or by its `webhook-id` (`msg_…`, what a receiver has),
    with its body and its attempts in order (`attempt_list`)."""
    attempts = Prefetch("attempts", DeliveryAttempt.objects.order_by("number"), to_attr="attempt_list")
    deliveries = deliveries_of_key(key=key).defer(None).select_related("event").prefetch_related(attempts)
    if delivery_id.startswith(DISPATCH_PREFIX):
        found = deliveries.filter(dispatch_id=delivery_id).first()
    elif delivery_id.isascii() and delivery_id.isdigit() and int(delivery_id) <= MAX_DELIVERY_ID:
        found = deliveries.filter(pk=int(delivery_id)).first()
    else:
        found = None
    if found is None:
        raise DeliveryNotFound()
    return found


def dead_letters_of_key(*, key: ApiKey) -> QuerySet[Delivery]:
    """The key's dead letters, the most recently dead first."""
    dead = deliveries_of_key(key=key).filter(status=Delivery.Status.DEAD)
    return dead.order_by("-dead_at", "-id")


def delivery_resend(*, delivery: Delivery) -> Delivery:
    """Send one delivered or dead delivery again (409 while it is still on its way, or when its webhook
    is deleted or disabled); the delivery as it is now, waiting for its attempt."""
    if delivery.status not in RESENDABLE:
        raise DeliveryInProgress()
    if delivery.webhook_id is None:
        raise WebhookDeleted()
    require_active(delivery.webhook)
    queued, _skipped = deliveries_resend(
        deliveries=Delivery.objects.filter(pk=delivery.pk), requested_by=None
    )
    if not queued:  # it changed state since it was read (another resend, the purge)
        raise DeliveryInProgress()
    delivery.refresh_from_db()
    return delivery


def dead_letters_resend_ids(*, key: ApiKey, ids: list[int]) -> tuple[int, int]:
    """Resend the key's dead letters among `ids`: (queued, skipped). Ids of other accounts or sessions,
    deliveries that are not dead letters, and those of deleted or disabled webhooks are skipped."""
    wanted = set(ids)
    if not wanted or len(wanted) > MAX_RESEND_IDS:
        raise ValidationFailed(f"ids: give 1 to {MAX_RESEND_IDS} delivery ids")
    chosen = dead_letters_of_key(key=key).filter(pk__in=wanted, webhook__status=Webhook.Status.ACTIVE)
    queued, _skipped = deliveries_resend(deliveries=chosen, requested_by=None)
    return queued, len(wanted) - queued


def dead_letters_resend_since(*, key: ApiKey, webhook_id: str, since: datetime) -> int:
    """Resend one webhook's dead letters created since `since` (the webhook's replay of dead letters,
    webhooks.registered.replay); how many were queued. 404 for a webhook the key may not see, 409 when
    it is disabled."""
    webhook = webhook_visible(key=key, webhook_id=webhook_id)
    now = timezone.now()
    if since >= now:
        raise ValidationFailed("since: must be in the past")
    # Nothing older than the outbox's retention exists; the replay's window is bounded by it.
    since = max(since, now - replay.MAX_WINDOW + timedelta(seconds=1))
    return replay.webhook_replay(webhook=webhook, since=since, until=now, only_failed=True)
