"""The event log: every event of a session, numbered per conversation."""

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
