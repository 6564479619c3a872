"""Writes of registered webhooks (`/gateway/webhooks`, the account area, the admin): create, patch,
delete. Deliveries still waiting follow a patched webhook."""

from __future__ import annotations

from uuid import UUID

from django.db import transaction
from django.utils import timezone

from accounts.models import Account
from core.errors import ValidationFailed
from core.unset import UNSET
from messaging.errors import SessionNotFound
from messaging.models import Session
from webhooks.body_filters import filter_clean
from webhooks.catalogue import canonical_events
from webhooks.errors import WebhookLimitReached
from webhooks.models import Delivery, Webhook
from webhooks.outbox.disable import webhook_disable, webhook_enable
from webhooks.outbox.policy import target_url_clean
from webhooks.outbox.posting import WEBHOOK_DELETED
from webhooks.registered.custom_headers import headers_clean
from webhooks.schedules import retry_schedule_clean


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


# Not yet sent: held for a disabled webhook, or queued behind a chat's earlier event (outbox.fifo).
WAITING_OR_HELD = [
    Delivery.Status.PENDING,
    Delivery.Status.FAILED,
    Delivery.Status.HELD,
    Delivery.Status.QUEUED,
]


def _clean_ordering(value: str | None) -> str:
    """The ordering to store: "parallel" (None too) or "fifo"."""
    if value is None:
        return Webhook.Ordering.PARALLEL
    if value not in Webhook.Ordering.values:
        raise ValidationFailed('ordering: must be "parallel" or "fifo"')
    return value


def _clean_rate_limit(value: int | None) -> int | None:
    """Deliveries per second, 1 to 1,000; None: no limit."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationFailed("rateLimit: must be a whole number or null")
    if not Webhook.MIN_RATE_LIMIT <= value <= Webhook.MAX_RATE_LIMIT:
        raise ValidationFailed(
            f"rateLimit: must be between {Webhook.MIN_RATE_LIMIT} and {Webhook.MAX_RATE_LIMIT}, or null"
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
    rate_limit: int | None = None,
    headers: dict[str, str] | None = None,
    retry_schedule: str | list[int] | None = None,
    body_filter: dict | None = None,
    ordering: str | None = None,
) -> Webhook:
    """Register a webhook on one of the account's sessions, within the plan's webhook cap.
    `rate_limit`: deliveries per second across every worker (None: no limit); `retry_schedule`:
    "seed" (None too), "extended" or delays in seconds (webhooks.schedules); `body_filter`: conditions on
    the delivered body (webhooks.body_filters; None: every event); `ordering`: "parallel" (None too) or
    "fifo" (webhooks.outbox.fifo)."""
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
        rate_limit=_clean_rate_limit(rate_limit),
        headers=headers_clean(headers) or None,
        retry_schedule=retry_schedule_clean(retry_schedule),
        filter=filter_clean(body_filter),
        ordering=_clean_ordering(ordering),
    )
    cap = account.plan.max_webhooks
    if cap is not None and Webhook.objects.filter(account=account).count() >= cap:
        noun = "webhook" if cap == 1 else "webhooks"
        raise WebhookLimitReached(f"The {account.plan.name} plan allows {cap} {noun}.")
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
    rate_limit: int | None = UNSET,
    headers: dict[str, str] | None = UNSET,
    status: str = UNSET,
    retry_schedule: str | list[int] | None = UNSET,
    body_filter: dict | None = UNSET,
    ordering: str = UNSET,
) -> Webhook:
    """Patch a webhook. Deliveries still waiting follow a new URL, secret, headers, attempt count,
    retry schedule and rate limit (a limit and a schedule are read with every claim).

    A new `secret` replaces the old one at once (secret/rotate keeps both for an overlap); `status`
    "active" enables a disabled webhook again (webhooks.outbox.disable), "disabled" stops its deliveries."""
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
    if rate_limit is not UNSET:
        webhook.rate_limit = _clean_rate_limit(rate_limit)
    if retry_schedule is not UNSET:
        webhook.retry_schedule = retry_schedule_clean(retry_schedule)
    if body_filter is not UNSET:  # applies to events from now on (held and waiting rows stay)
        webhook.filter = filter_clean(body_filter)
    if ordering is not UNSET:  # applies to events from now on; queued rows are still released in turn
        webhook.ordering = _clean_ordering(ordering)
    webhook.updated_at = timezone.now()
    webhook.save()
    if status is not UNSET:
        _status_set(webhook, status)
    # Held ones (the webhook is disabled) follow too, for when it is enabled again.
    waiting = Delivery.objects.filter(webhook=webhook, status__in=WAITING_OR_HELD)
    waiting.update(target_url=webhook.url, max_attempts=webhook.attempts)
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
    """Delete a webhook; its deliveries still waiting or held become dead letters (kept 7 days, not sent)."""
    now = timezone.now()
    Delivery.objects.filter(webhook=webhook, status__in=WAITING_OR_HELD).update(
        status=Delivery.Status.DEAD, dead_at=now, last_error=WEBHOOK_DELETED
    )
    webhook.delete()
