"""The event stream's jobs: one per event to publish on RabbitMQ (webhooks.stream)."""

from __future__ import annotations

from django.db import models

from jobs.columns import JobColumns


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
            # A group's head (jobs.queue.Queue.claim): only unfinished rows.
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
