"""Registered webhooks (the gateway's `/gateway/webhooks`) and the windows of their `rateLimit`."""

from __future__ import annotations

import secrets

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.fields import EncryptedJSONField, EncryptedTextField
from core.writes import WatchedManager
from webhooks.schedules import SEED, schedule_attempts


def seed_schedule() -> str:
    """The default retry schedule: the seed's (webhooks.schedules)."""
    return SEED


def new_webhook_id() -> str:
    return "wh_" + secrets.token_urlsafe(16).replace("-", "").replace("_", "")[:20]


class Webhook(models.Model):
    """A registered webhook (the gateway's): POSTs the events of one session to a customer's URL."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        DISABLED = "disabled", _("Disabled")

    class Ordering(models.TextChoices):
        # "fifo": a chat's next event waits until the previous one is delivered or dead-lettered
        # (webhooks.outbox.fifo); "parallel": every event is sent as soon as a worker can.
        PARALLEL = "parallel", _("Parallel")
        FIFO = "fifo", _("In order per chat")

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
    # "seed", "extended" or a list of delays in seconds between attempts (webhooks.schedules).
    retry_schedule = models.JSONField(
        default=seed_schedule,
        blank=True,
        help_text='"seed" (0, 1, 4, 16, 64 s; retry count attempts), "extended" (about 27.5 h) or a list '
        "of 1 to 20 delays in seconds between attempts, each at most 86,400.",
    )
    # Conditions on the delivered body (webhooks.body_filters); null: every event it listens to.
    filter = models.JSONField(
        null=True,
        blank=True,
        help_text='Conditions on the delivered body, e.g. {"data.fromMe": false}; empty for every event.',
    )
    ordering = models.CharField(
        max_length=10,
        choices=Ordering.choices,
        default=Ordering.PARALLEL,
        help_text='"parallel", or "fifo": a chat\'s next event waits until the previous one is finished.',
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

    # Its writes, whatever API makes them, drop what emit() keeps of the session (webhooks.lookups).
    objects = WatchedManager()

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["session", "created_at"])]

    def __str__(self) -> str:
        return f"{self.id} → {self.url}"

    @property
    def attempts(self) -> int:
        """Attempts per event under its schedule (`retry_count` on the seed's)."""
        return schedule_attempts(self.retry_schedule, self.retry_count)


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


def new_replay_id() -> str:
    return "rp_" + secrets.token_urlsafe(16).replace("-", "").replace("_", "")[:20]


class WebhookReplay(models.Model):
    """One replay of a registered webhook's window (webhooks.registered.replay): its deliveries are
    released to the worker a chunk at a time, in their events' order, so a large replay never holds more
    than a chunk ahead of live events; one replay per webhook runs at a time (`finished_at` unset)."""

    id = models.CharField(primary_key=True, max_length=32, default=new_replay_id, editable=False)
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="replays")
    since = models.DateTimeField(help_text="Start of the window (by the event's own time), inclusive.")
    until = models.DateTimeField(help_text="End of the window, exclusive.")
    only_failed = models.BooleanField(default=False)
    selected = models.PositiveIntegerField(default=0, help_text="Deliveries the window held when asked.")
    released = models.PositiveIntegerField(default=0, help_text="Deliveries handed to the worker so far.")
    # The window's delivery ids in the order of their events' time, chosen once when the replay is asked
    # (at most 10,000), and how many of them were taken: each step takes the next ones without choosing
    # the window again (a join and a sort over the webhook's deliveries).
    deliveries = models.JSONField(default=list, editable=False)
    taken = models.PositiveIntegerField(default=0, editable=False)
    requested_at = models.DateTimeField(default=timezone.now, editable=False)
    ticked_at = models.DateTimeField(default=timezone.now, help_text="Last step of its feeder.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]
        constraints = [
            # The database's own guard for "one replay per webhook at a time".
            models.UniqueConstraint(
                fields=["webhook"], condition=models.Q(finished_at__isnull=True), name="one_running_replay"
            )
        ]

    def __str__(self) -> str:
        return f"{self.id} of {self.webhook_id}"
