"""A session's instance webhooks: where and in which format its events go (the official envelope)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from core.writes import WatchedManager


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

    # Its writes, whatever API makes them, drop what emit() keeps of the session (webhooks.lookups).
    objects = WatchedManager()

    class Meta:
        verbose_name = "instance webhook configuration"

    def __str__(self) -> str:
        return f"instance webhooks of {self.session_id}"
