from __future__ import annotations

import secrets
import uuid

from django.db import models
from django.utils import timezone


def new_instance_key() -> str:
    return secrets.token_urlsafe(24)


class Session(models.Model):
    """A messaging-app account connected through an engine."""

    class Status(models.TextChoices):
        DISCONNECTED = "disconnected", "Disconnected"
        QR = "qr", "Waiting for QR scan"
        CONNECTED = "connected", "Connected"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="sessions")
    name = models.CharField(max_length=100)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DISCONNECTED)
    engine = models.CharField(
        max_length=200, blank=True, help_text="Dotted path; empty uses MESSAGING_ENGINE."
    )
    # Official channels come later; the meta envelope already reads these.
    provider = models.CharField(max_length=20, default="whatsapp")
    official = models.BooleanField(default=False)
    jid = models.CharField(max_length=100, blank=True, help_text="Own JID once paired.")
    phone = models.CharField(max_length=30, blank=True)
    instance_key = models.CharField(max_length=64, unique=True, default=new_instance_key, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["account", "status"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"
