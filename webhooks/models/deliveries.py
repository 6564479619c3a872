"""Deliveries of events to webhooks, and every attempt at one."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.logs import current_request_id
from core.lookups import ConstantIn
from webhooks.models.events import Event
from webhooks.models.registered import Webhook


def new_dispatch_id() -> str:
    """The stable id of one dispatch (`x-webhook-id` / `webhook-id`), kept on every retry and resend."""
    return "msg_" + uuid.uuid4().hex


class Delivery(models.Model):
    """One event to one target: the outbox row that is the truth (the broker only carries hints).

    Generic over the kind of target: a registered webhook (`webhook` set) or, later, an instance
    webhook (`target_url` only). The kind picks the retry policy (webhooks.outbox.policy).
    """

    class Kind(models.TextChoices):
        REGISTERED = "registered", "Registered webhook"
        INSTANCE = "instance", "Instance webhook"

    class Status(models.TextChoices):
        # Labels show in the account area, in the visitor's language; the API sends the values.
        PENDING = "pending", _("Pending")
        SENDING = "sending", _("Sending")
        DELIVERED = "delivered", _("Delivered")
        FAILED = "failed", _("Failed, will retry")
        DEAD = "dead", _("Dead letter")
        # Written while its registered webhook is disabled: kept, never attempted, not a failure; sent
        # when the webhook is enabled again (webhooks.outbox.disable). No claim, sweep or statistic
        # looks at it (they read pending, failed and sending only).
        HELD = "held", _("Held: webhook disabled")
        # A "fifo" webhook's delivery written while an earlier one of its chat is unfinished: not
        # claimable, not counted, released to pending when that one is delivered or dead
        # (webhooks.outbox.fifo). Like held, nothing but the release looks at it.
        QUEUED = "queued", _("Queued behind the chat's earlier event")

    dispatch_id = models.CharField(
        max_length=40, unique=True, default=new_dispatch_id, editable=False, help_text="x-webhook-id"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.REGISTERED)
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    # The foreign keys below are indexed in Meta, not by Django's defaults: `session` by the composite
    # indexes that start with it, `webhook` without the text-pattern twin Django adds to a text key,
    # `resend_requested_by` only where set (Meta.indexes says why).
    session = models.ForeignKey(
        "messaging.Session", on_delete=models.CASCADE, related_name="deliveries", db_index=False
    )
    webhook = models.ForeignKey(
        Webhook, on_delete=models.SET_NULL, null=True, blank=True, related_name="deliveries", db_index=False
    )
    target_url = models.URLField(max_length=2000)
    payload = models.JSONField(help_text="The JSON body; serialised the same way on every attempt.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    max_attempts = models.PositiveSmallIntegerField(default=Webhook.DEFAULT_RETRY_COUNT)
    timeout_seconds = models.FloatField(default=10.0)
    attempt_count = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    claimed_at = models.DateTimeField(null=True, blank=True)
    claim_token = models.CharField(max_length=32, blank=True, editable=False)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    dead_at = models.DateTimeField(null=True, blank=True)
    # A resend from the dashboard: one attempt, no new retry chain.
    resend_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
    )
    resend_requested_at = models.DateTimeField(null=True, blank=True)
    resend_pending = models.BooleanField(default=False, editable=False)
    # The request that caused it (X-Request-Id), so its attempts' log lines name it (core/logs.py).
    request_id = models.CharField(max_length=64, blank=True, default=current_request_id, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "deliveries"
        # The worker's and the sweeper's indexes are partial: they hold only the few rows waiting or
        # being sent, not every delivered one. A delivery's row is rewritten at each change of status,
        # and a full index kept one entry per old version until vacuum, so a busy target's claim walked
        # thousands of them (webhooks.outbox.store).
        indexes = [
            models.Index(
                fields=["target_url", "next_attempt_at", "id"],
                condition=models.Q(status__in=["pending", "failed"]),
                name="delivery_waiting_by_target",
            ),
            models.Index(
                fields=["target_url", "claimed_at", "id"],
                condition=models.Q(status="sending"),
                name="delivery_sending_by_target",
            ),
            models.Index(
                fields=["next_attempt_at"],
                condition=models.Q(status__in=["pending", "failed"]),
                name="delivery_waiting",
            ),
            models.Index(
                fields=["claimed_at"], condition=models.Q(status="sending"), name="delivery_sending"
            ),
            models.Index(fields=["session", "created_at"]),
            # The purge finds delivered rows and dead letters past their time here
            # (webhooks.outbox.retention);
            # a row enters one of them once, when it is delivered or dies.
            models.Index(
                fields=["delivered_at"], condition=models.Q(status="delivered"), name="delivery_delivered"
            ),
            models.Index(fields=["dead_at"], condition=models.Q(status="dead"), name="delivery_dead"),
            # Held deliveries are purged 7 days after they were written, like dead letters.
            models.Index(fields=["created_at"], condition=models.Q(status="held"), name="delivery_held"),
            # A fifo webhook's queued deliveries (webhooks.outbox.fifo): its release and the sweeper's.
            models.Index(
                fields=["webhook", "created_at"], condition=models.Q(status="queued"), name="delivery_queued"
            ),
            # Every row version is written into each full index: these two are all the foreign keys
            # need (a deleted webhook's or staff user's rows set to NULL), the second one only where set.
            # The first also gives a webhook's delivery log (GET /gateway/webhooks/{id}/deliveries) its
            # rows newest first without sorting them all (docs/decisions/0016).
            models.Index(fields=["webhook", "created_at"], name="delivery_webhook_created"),
            models.Index(
                fields=["resend_requested_by"],
                condition=models.Q(resend_requested_by__isnull=False),
                name="delivery_resent_by",
            ),
            # Instance-webhook statistics: one session's deliveries of one kind over 7 days.
            models.Index(fields=["session", "kind", "created_at"], name="delivery_session_kind_created"),
        ]

    def __str__(self) -> str:
        return f"{self.dispatch_id} ({self.status})"

    @property
    def is_resend(self) -> bool:
        return self.resend_requested_at is not None


# The worker's, the sweeper's and the purge's reads name their statuses as constants (the partial indexes
# above are on the status): `status__constant_in=(...)`.
Delivery._meta.get_field("status").register_lookup(ConstantIn)


class DeliveryAttempt(models.Model):
    """One POST of a delivery: what the receiver answered, or why nothing was answered."""

    RESPONSE_EXCERPT_CHARS = 2048

    # Not indexed alone: the (delivery, number) index starts with it.
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempts", db_index=False)
    number = models.PositiveSmallIntegerField()
    scheduled_at = models.DateTimeField(help_text="When the attempt was due.")
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    response_excerpt = models.TextField(blank=True)
    error = models.CharField(max_length=500, blank=True)
    outcome = models.CharField(max_length=20, blank=True, help_text="delivered, retry, dead")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="Staff user who asked for this attempt (a resend); empty for automatic attempts.",
        db_index=False,
    )

    class Meta:
        ordering = ["delivery", "number"]
        indexes = [
            models.Index(fields=["delivery", "number"]),
            models.Index(
                fields=["requested_by"],
                condition=models.Q(requested_by__isnull=False),
                name="attempt_requested_by",
            ),
        ]

    def __str__(self) -> str:
        # A resend is one attempt beyond the retry chain: "of M" would read "attempt 4 of 3".
        of = " (resend)" if self.requested_by_id else f" of {self.delivery.max_attempts}"
        return f"attempt {self.number}{of}: {self.status_code or self.error or self.outcome}"
