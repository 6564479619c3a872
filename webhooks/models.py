from __future__ import annotations

import secrets
import uuid

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.fields import EncryptedJSONField, EncryptedTextField
from core.job_columns import JobColumns
from core.logs import current_request_id


class Event(models.Model):
    """Something that happened on a session: the outbox's first table.

    Written by `webhooks.services.emit()` inside the caller's transaction. `sequence` counts events per
    (session, chat) in order of receipt, and the millisecond times keep ordering a rendering concern.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Not indexed alone: both composite indexes below start with it (one index less to write per event).
    session = models.ForeignKey(
        "messaging.Session", on_delete=models.CASCADE, related_name="events", db_index=False
    )
    name = models.CharField(max_length=40, help_text="Canonical event name, e.g. message, connected.")
    data = models.JSONField(default=dict)
    chat = models.CharField(max_length=100, blank=True)
    sequence = models.PositiveBigIntegerField(default=0)
    event_ms = models.BigIntegerField(help_text="When it happened (ms since epoch).")
    received_at_ms = models.BigIntegerField(help_text="When Ponte learned of it (ms since epoch).")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["created_at"]
        indexes = [
            models.Index(fields=["session", "chat", "sequence"]),
            models.Index(fields=["session", "created_at"]),
            # The purge walks old events in this order (webhooks.outbox.retention).
            models.Index(fields=["created_at", "id"], name="event_created"),
        ]

    def __str__(self) -> str:
        return f"{self.name} on {self.session_id}"


class EventSequence(models.Model):
    """The last `sequence` given to an event of one (session, chat): emit() takes the next one by
    raising it (INSERT ... ON CONFLICT DO UPDATE ... RETURNING, in the event's own statement on
    PostgreSQL), not by reading MAX(sequence) of the chat's events. The row lock it takes until the
    event's transaction ends also keeps two events of one chat from getting the same number."""

    session = models.ForeignKey(
        "messaging.Session", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    chat = models.CharField(max_length=100, blank=True)
    last = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "chat"], name="event_sequence_one_per_chat")
        ]

    def __str__(self) -> str:
        return f"{self.session_id} {self.chat or '-'}: {self.last}"


def new_webhook_id() -> str:
    return "wh_" + secrets.token_urlsafe(16).replace("-", "").replace("_", "")[:20]


def new_dispatch_id() -> str:
    """The stable id of one dispatch (`x-webhook-id` / `webhook-id`), kept on every retry and resend."""
    return "msg_" + uuid.uuid4().hex


class Webhook(models.Model):
    """A registered webhook (the gateway's): POSTs the events of one session to a customer's URL."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        DISABLED = "disabled", _("Disabled")

    MIN_RETRY_COUNT = 1
    MAX_RETRY_COUNT = 10
    DEFAULT_RETRY_COUNT = 5
    MIN_RATE_LIMIT = 1
    MAX_RATE_LIMIT = 1000

    id = models.CharField(primary_key=True, max_length=32, default=new_webhook_id, editable=False)
    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="webhooks")
    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=2000)
    # Never returned by the API; encrypted at rest (PONTE_SECRET_KEYS); empty means deliveries are not
    # signed. The API caps it at 500 characters.
    secret = EncryptedTextField(blank=True)
    events = models.JSONField(default=list, help_text='Canonical event names, e.g. ["message", "qr"].')
    retry_count = models.PositiveSmallIntegerField(
        default=DEFAULT_RETRY_COUNT,
        validators=[MinValueValidator(MIN_RETRY_COUNT), MaxValueValidator(MAX_RETRY_COUNT)],
        help_text="Attempts per event, 1 to 10 (the first try included).",
    )
    # Deliveries per second across every worker (webhooks.outbox.rate_limit); null: as fast as the workers go.
    rate_limit = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(MIN_RATE_LIMIT), MaxValueValidator(MAX_RATE_LIMIT)],
        help_text="Deliveries per second, 1 to 1,000; empty for no limit.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(null=True, blank=True, editable=False, help_text="Set by a patch.")
    # Secret rotation (webhooks.registered.rotation): the secret replaced by the last rotation keeps
    # signing too, until `previous_secret_expires_at`, so receivers can switch keys without losing a delivery.
    previous_secret = EncryptedTextField(blank=True, editable=False)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Custom headers sent with every delivery (webhooks.registered.custom_headers): {name: value},
    # encrypted at rest because customers put credentials in them.
    headers = EncryptedJSONField(null=True, blank=True, help_text="Extra request headers {name: value}.")
    # Auto-disable (webhooks.outbox.disable): counted by the worker in the statement that records outcomes.
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    disabled_reason = models.CharField(max_length=500, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    failing_since = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="First failed attempt since the last success."
    )
    failed_attempts = models.PositiveIntegerField(
        default=0, editable=False, help_text="Failed attempts in a row since the last success."
    )

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["session", "created_at"])]

    def __str__(self) -> str:
        return f"{self.id} → {self.url}"


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
        # thousands of them (webhooks.outbox.sql).
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
            # Every row version is written into each full index: these two are all the foreign keys
            # need (a deleted webhook's or staff user's rows set to NULL), the second one only where set.
            models.Index(fields=["webhook"], name="delivery_webhook"),
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


class InstanceWebhookConfig(models.Model):
    """The instance webhooks of one session: a URL per kind of event, falling back to
    `webhook_message`, in the `meta` (cloud-API) or `plain` envelope. Routing: webhooks.instance."""

    class Format(models.TextChoices):
        META = "meta", "Cloud-API envelope"
        PLAIN = "plain", "Plain {event, data} envelope"

    ALL_NUMBERS = "all"

    session = models.OneToOneField(
        "messaging.Session", on_delete=models.CASCADE, related_name="instance_webhook"
    )
    allow_webhook = models.BooleanField(default=False, help_text="Nothing is sent while this is off.")
    allow_number = models.CharField(
        max_length=500,
        default=ALL_NUMBERS,
        help_text='"all", or comma-separated numbers (digits) whose messages are forwarded.',
    )
    webhook_format = models.CharField(max_length=10, choices=Format.choices, default=Format.META)
    webhook_message = models.URLField(max_length=2000, blank=True, help_text="Default URL of every event.")
    webhook_group = models.URLField(max_length=2000, blank=True)
    webhook_connection = models.URLField(max_length=2000, blank=True)
    webhook_qrcode = models.URLField(max_length=2000, blank=True)
    webhook_message_from_me = models.URLField(max_length=2000, blank=True)
    webhook_history = models.URLField(max_length=2000, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "instance webhook configuration"

    def __str__(self) -> str:
        return f"instance webhooks of {self.session_id}"


class WebhookPace(models.Model):
    """A rate-limited webhook's lock row for the limiter's database fallback (no Redis, or Redis away:
    webhooks.outbox.rate_limit): each send slot is taken under it, so two workers never count at once."""

    webhook = models.OneToOneField(Webhook, on_delete=models.CASCADE, primary_key=True, related_name="+")
    taken_at_us = models.BigIntegerField(default=0, help_text="Microseconds since the epoch.")

    def __str__(self) -> str:
        return f"pace of {self.webhook_id}"


class WebhookSend(models.Model):
    """One send of a rate-limited webhook in the limiter's window (database fallback): `ends_at_us` is
    when its POST ended, or, while it is on its way, when it will be given up."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="+", db_index=False)
    ends_at_us = models.BigIntegerField()

    class Meta:
        indexes = [models.Index(fields=["webhook", "ends_at_us"], name="webhook_send_window")]

    def __str__(self) -> str:
        return f"send of {self.webhook_id} ending {self.ends_at_us}"


class StreamJob(JobColumns):
    """One event to publish on the event stream (RabbitMQ, webhooks.stream): an outbox job, written with
    the event and published in order per conversation (session, chat), retried while the broker is
    away. `payload` is the registered-webhook body; `routing_key` is `<sessionId>.<event>`."""

    class Status(models.TextChoices):
        PENDING = "pending"
        SENDING = "sending"
        FAILED = "failed", "failed (will retry)"
        PUBLISHED = "published"
        DEAD = "dead"

    # Plain ids, no foreign keys: a job outlives neither nor needs them, and the outbox's purge of old
    # events must not take unpublished jobs with them.
    session_id = models.UUIDField()
    chat = models.CharField(max_length=100, blank=True, help_text="Order is kept per chat.")
    event_id = models.UUIDField()
    routing_key = models.CharField(max_length=200)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    max_attempts = models.PositiveSmallIntegerField(default=10_000)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            # A group's head (webhooks.outbox.ordered.claim_head): only unfinished rows.
            models.Index(
                fields=["session_id", "chat", "id"],
                condition=models.Q(status__in=["pending", "failed", "sending"]),
                name="stream_unfinished_by_chat",
            ),
            models.Index(
                fields=["next_attempt_at"],
                condition=models.Q(status__in=["pending", "failed"]),
                name="stream_waiting",
            ),
            models.Index(fields=["claimed_at"], condition=models.Q(status="sending"), name="stream_sending"),
            models.Index(
                fields=["published_at"], condition=models.Q(status="published"), name="stream_published"
            ),
            models.Index(fields=["dead_at"], condition=models.Q(status="dead"), name="stream_dead"),
        ]

    def __str__(self) -> str:
        return f"{self.routing_key} #{self.pk} ({self.status})"
