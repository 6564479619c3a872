"""Auto-disable of registered webhooks whose receiver has been failing for a long time.

The worker keeps two numbers on each webhook, in the statement that records a batch's outcomes
(webhooks.outbox.store's record_batch_counted): `failing_since`, the first failed attempt since the last
success, and `failed_attempts`, the failed attempts in a row. A success resets both. After each batch
the worker hands the webhooks it touched to `webhooks_check_failing`, which costs nothing more unless one has
failed for PONTE_WEBHOOK_DISABLE_AFTER_SECONDS and PONTE_WEBHOOK_DISABLE_AFTER_ATTEMPTS times (both
are needed: a receiver down for a week but sent one event is not judged on one attempt, and a burst of
failures in a minute is not a dead receiver). Such a webhook is disabled: its waiting deliveries become
dead letters (resendable once it works again), the account is told by e-mail and the account area shows
a banner. `PATCH {"status": "active"}` enables it again.

While a webhook is disabled (auto-disabled, or by its owner) nothing is lost: emit() writes its
deliveries `held` (a status the worker, the sweeper and the statistics never read: not attempted, not a
failure, never a dead letter), and enabling it releases them in order, each with its own webhook-id.
Held deliveries are purged 7 days after they were written (webhooks.outbox.retention).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from webhooks.models import Delivery, Webhook
from webhooks.outbox import fifo
from webhooks.outbox.hints import enqueue_on_commit
from webhooks.outbox.operational import webhook_disabled_send

logger = logging.getLogger(__name__)

WAITING = [Delivery.Status.PENDING, Delivery.Status.FAILED]


def _disable_due(failing_since: datetime | None, failed_attempts: int, now: datetime) -> bool:
    if failing_since is None:
        return False
    seconds = int(settings.PONTE_WEBHOOK_DISABLE_AFTER_SECONDS)
    attempts = int(settings.PONTE_WEBHOOK_DISABLE_AFTER_ATTEMPTS)
    return failed_attempts >= attempts and now - failing_since >= timedelta(seconds=seconds)


def webhooks_check_failing(rows: Iterable[tuple[str, datetime | None, int]]) -> list[str]:
    """Disable the webhooks among `rows` (id, failing since, failed attempts in a row, as the
    recording statement left them) that have failed long enough; their ids."""
    now = timezone.now()
    disabled = []
    for webhook_id, failing_since, failed_attempts in rows:
        if _disable_due(failing_since, failed_attempts, now):
            since = timezone.localtime(failing_since).isoformat(timespec="seconds")
            reason = f"Every delivery attempt failed since {since} ({failed_attempts} attempts in a row)."
            if webhook_disable(webhook_id=webhook_id, reason=reason):
                disabled.append(webhook_id)
    return disabled


@transaction.atomic
def webhook_disable(*, webhook_id: str, reason: str, tell: bool = True) -> bool:
    """Disable one webhook (False: already disabled or gone): its waiting deliveries become dead
    letters and (`tell`) the account's people get an e-mail once the change is committed."""
    webhook = (
        Webhook.objects.select_for_update(of=("self",))
        .select_related("account__user")
        .filter(pk=webhook_id, status=Webhook.Status.ACTIVE)
        .first()
    )
    if webhook is None:
        return False
    now = timezone.now()
    webhook.status = Webhook.Status.DISABLED
    webhook.disabled_reason = reason[:500]
    webhook.disabled_at = now
    webhook.save(update_fields=["status", "disabled_reason", "disabled_at"])
    dead_error = f"Webhook disabled: {reason}"[:500]
    Delivery.objects.filter(webhook=webhook, status__in=WAITING).update(
        status=Delivery.Status.DEAD, dead_at=now, last_error=dead_error, claimed_at=None, claim_token=""
    )
    # A fifo webhook's deliveries queued behind their chat were never attempted: kept like its new events.
    Delivery.objects.filter(webhook=webhook, status=Delivery.Status.QUEUED).update(
        status=Delivery.Status.HELD
    )
    logger.warning("Webhook %s disabled: %s", webhook.pk, reason)
    webhook_disabled_send(webhook)  # the account's other webhooks that subscribe (webhook.disabled)
    if tell:
        transaction.on_commit(lambda: _tell_the_account(webhook))
    return True


def webhook_enable(*, webhook: Webhook) -> int:
    """Back to active with a clean slate (called inside webhook_update's transaction, before the webhook
    is saved): the deliveries held while it was disabled are released to its current URL, in their
    events' order (their due time is still the event's), and hinted once the change is committed; how
    many were released."""
    webhook.status = Webhook.Status.ACTIVE
    webhook.disabled_reason = ""
    webhook.disabled_at = None
    webhook.failing_since = None
    webhook.failed_attempts = 0
    queued = 0
    if webhook.ordering == Webhook.Ordering.FIFO:  # its chats go on one event at a time (outbox.fifo)
        queued = fifo.held_requeue(webhook_id=webhook.pk, url=webhook.url, attempts=webhook.attempts)
    held = Delivery.objects.filter(webhook=webhook, status=Delivery.Status.HELD)
    first = held.order_by("pk").values_list("pk", flat=True).first()
    released = held.update(
        status=Delivery.Status.PENDING, target_url=webhook.url, max_attempts=webhook.attempts
    )
    if first is not None:
        enqueue_on_commit([(first, webhook.url)])  # one hint: its drain sends them all
    return released + queued


def recipients(webhook: Webhook) -> list[str]:
    """Who is told: the account's contact address and the user who signs in to its area."""
    account = webhook.account
    user_email = account.user.email if account.user_id else ""
    return list(dict.fromkeys(email for email in (account.email, user_email) if email))


def _tell_the_account(webhook: Webhook) -> None:
    to = recipients(webhook)
    if not to:
        return
    subject = gettext("Ponte disabled your webhook %(id)s") % {"id": webhook.pk}
    body = gettext(
        "Ponte stopped sending events to your webhook %(id)s (%(url)s):\n\n%(reason)s\n\n"
        "Its waiting deliveries were kept as dead letters for 7 days. The events that happen while it is "
        "disabled are kept too (for 7 days) and sent when it is enabled again. Fix the receiver, then "
        'enable the webhook again in the account area or with PATCH /gateway/webhooks/%(id)s {"status": '
        '"active"}, and resend the dead letters or replay the window you missed.\n'
    ) % {"id": webhook.pk, "url": webhook.url, "reason": webhook.disabled_reason}
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, to)
    except Exception:  # the disable stands; a mail server down must not undo it or kill the worker
        logger.exception("Could not e-mail the account of disabled webhook %s", webhook.pk)
