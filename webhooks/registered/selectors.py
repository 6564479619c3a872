"""Reads of the webhooks app."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from accounts.models import ApiKey
from webhooks.errors import WebhookNotFound
from webhooks.models import Delivery, Webhook


def webhook_list(*, key: ApiKey) -> QuerySet[Webhook]:
    """The account's webhooks that this key may see (a key limited to sessions sees only theirs);
    webhooks.registered.filters narrows them to one session."""
    webhooks = Webhook.objects.filter(account_id=key.account_id)
    if key.allowed_sessions:
        webhooks = webhooks.filter(session_id__in=[str(s) for s in key.allowed_sessions])
    return webhooks.order_by("created_at")


def webhook_get(*, key: ApiKey, webhook_id: str) -> Webhook:
    """One of the account's webhooks; another account's is as unknown as a missing one (404)."""
    webhook = Webhook.objects.filter(account_id=key.account_id, pk=webhook_id).first()
    if webhook is None:
        raise WebhookNotFound()
    return webhook


def webhooks_disabled(*, account_id: int) -> QuerySet[Webhook]:
    """The account's disabled webhooks, for the account area's banner (webhooks.outbox.disable), each
    with `held`: the events kept for it meanwhile, sent when it is enabled again."""
    held = Count("deliveries", filter=Q(deliveries__status=Delivery.Status.HELD))
    disabled = Webhook.objects.filter(account_id=account_id, status=Webhook.Status.DISABLED)
    return disabled.annotate(held=held).order_by("disabled_at")
