"""Status (stories) and channels (newsletters): the session's own statuses and the contacts' ones it saw,
and the channels it owns or follows (issue 41, items 9 and 10). Imported by messaging.models, so Django
finds them in the app's models module."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import models
from django.utils import timezone

#: Where WhatsApp posts statuses: every status is a message of this chat.
STATUS_CHAT = "status@broadcast"
#: A status is shown for this long after it was posted.
STATUS_LIFETIME_HOURS = 24


class StatusPost(models.Model):
    """One status: posted by the session (`from_me`, through the API or from the phone) or by a contact
    and seen by the session (a `status` event). Kept 24 hours in the lists; `deleted_at` once deleted."""

    class Type(models.TextChoices):
        TEXT = "text"
        IMAGE = "image"
        VIDEO = "video"

    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="statuses")
    status_id = models.CharField(max_length=128)
    sender = models.CharField(max_length=100)
    push_name = models.CharField(max_length=100, blank=True)
    from_me = models.BooleanField(default=False)
    type = models.CharField(max_length=8, choices=Type.choices)
    text = models.TextField(blank=True, help_text="The text of a text status, or a media status's caption.")
    background_color = models.CharField(max_length=7, blank=True)
    font = models.PositiveSmallIntegerField(null=True, blank=True)
    media = models.JSONField(default=dict, blank=True, help_text="mediaUrl, mimeType, sha256, size.")
    posted_at = models.DateTimeField(default=timezone.now)
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["session", "sender", "status_id"], name="one_status_row_per_sender"
            )
        ]
        indexes = [models.Index(fields=["session", "from_me", "-posted_at"], name="status_newest_first")]

    def __str__(self) -> str:
        return f"{self.type} status {self.status_id} by {self.sender}"

    @property
    def expires_at(self) -> datetime:
        return self.posted_at + timedelta(hours=STATUS_LIFETIME_HOURS)

    @property
    def media_url(self) -> str | None:
        return self.media.get("mediaUrl") or None

    @property
    def mime_type(self) -> str | None:
        return self.media.get("mimeType") or None


class Newsletter(models.Model):
    """A channel (newsletter) the session owns or follows, as its engine last listed it."""

    class Role(models.TextChoices):
        OWNER = "owner"
        FOLLOWER = "follower"

    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="newsletters")
    jid = models.CharField(max_length=100)
    name = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    invite = models.CharField(max_length=100, blank=True)
    role = models.CharField(max_length=8, choices=Role.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "jid"], name="one_newsletter_row_per_session")
        ]

    def __str__(self) -> str:
        return f"{self.name or self.jid} ({self.role})"


class SandboxNewsletter(models.Model):
    """The sandbox's "WhatsApp" side of channels: those a sandbox device created or follows."""

    session_id = models.UUIDField(db_index=True)
    jid = models.CharField(max_length=100)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    invite = models.CharField(max_length=100)
    role = models.CharField(max_length=8)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session_id", "jid"], name="one_sandbox_newsletter_per_session")
        ]

    def __str__(self) -> str:
        return self.jid
