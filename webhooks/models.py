from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone


class Event(models.Model):
    """Something that happened on a session: the outbox's first table.

    Written by `webhooks.services.emit()` inside the caller's transaction. `sequence` counts events per
    (session, chat) in order of receipt, and the millisecond times keep ordering a rendering concern.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="events")
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
        ]

    def __str__(self) -> str:
        return f"{self.name} on {self.session_id}"
