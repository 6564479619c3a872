"""What Ponte keeps per official session: its credentials (encrypted), templates, conversation windows.

Imported by messaging.models, so these are models of the `messaging` app (migration 0005).
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from core.fields import EncryptedJSONField


class ChannelAccount(models.Model):
    """An official session's Graph API credentials, encrypted at rest and never returned by the API."""

    session = models.OneToOneField("messaging.Session", on_delete=models.CASCADE, related_name="channel")
    # Cloud API: phoneNumberId, businessAccountId, accessToken, appSecret, verifyToken.
    # Messenger/Instagram: pageId, pageAccessToken, appSecret, verifyToken.
    credentials = EncryptedJSONField(null=True, editable=False, help_text="Encrypted; null after logout.")
    display_name = models.CharField(max_length=200, blank=True, help_text="As the Graph API names it.")
    verified_at = models.DateTimeField(default=timezone.now)
    disconnect_reason = models.CharField(max_length=300, blank=True)

    def __str__(self) -> str:
        return f"channel of {self.session_id}"

    def credential(self, name: str) -> str:
        return str((self.credentials or {}).get(name) or "")


class ChannelTemplate(models.Model):
    """A message template synced from the Graph API (`message_templates`); only APPROVED ones are sent."""

    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="templates")
    name = models.CharField(max_length=512)
    language = models.CharField(max_length=20)
    status = models.CharField(max_length=30)
    category = models.CharField(max_length=50, blank=True)
    body = models.TextField(blank=True, help_text="The BODY component's text, with {{1}}… placeholders.")
    variables = models.PositiveSmallIntegerField(default=0)
    components = models.JSONField(default=list, blank=True)
    synced_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "language"]
        constraints = [
            models.UniqueConstraint(fields=["session", "name", "language"], name="one_template_per_language")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.language})"


class ChannelConversation(models.Model):
    """The customer's last message time in one conversation, from the channel's own `timestamp`:
    the 24-hour customer service window is measured from it."""

    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="conversations")
    chat = models.CharField(max_length=100)
    last_customer_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "chat"], name="one_conversation_per_chat")]

    def __str__(self) -> str:
        return f"{self.chat} (last customer message {self.last_customer_at})"
