"""The Chatwoot mirror's tables: one integration per session, the chat ↔ conversation and message ↔
message links, and `MirrorJob`, the mirror's own outbox (claims with leases, retries, dead letters)."""

from __future__ import annotations

import secrets
import string

from django.db import models
from django.utils import timezone

from accounts.keys import digest_of
from core.fields import EncryptedTextField
from core.writes import WatchedManager
from jobs.columns import JobColumns

TOKEN_PREFIX_LENGTH = 8
_TOKEN_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-_")


def new_webhook_token() -> str:
    """The unguessable part of the receiving URL (`/integrations/chatwoot/<token>`): 256 random bits."""
    return secrets.token_urlsafe(32)


def webhook_token_prefix(token: str) -> str | None:
    """The lookup prefix of a presented token, or None when it cannot be one: only URL-safe characters
    of a plausible length, so a NUL or odd bytes in the path never reach a database lookup."""
    if not 16 <= len(token) <= 64 or not set(token) <= _TOKEN_CHARACTERS:
        return None
    return token[:TOKEN_PREFIX_LENGTH]


class ChatwootIntegration(models.Model):
    class Status(models.TextChoices):
        OK = "ok"
        INBOX_NOT_FOUND = "inbox_not_found"
        UNREACHABLE = "unreachable"

    session = models.OneToOneField("messaging.Session", on_delete=models.CASCADE, related_name="chatwoot")
    base_url = models.URLField(max_length=500)
    # Never returned by any interface; encrypted at rest (PONTE_SECRET_KEYS).
    access_token = EncryptedTextField()
    inbox_identifier = models.CharField(max_length=200)
    sign_messages = models.BooleanField(default=False, help_text="Prefix agent messages with their name.")
    reopen_conversations = models.BooleanField(
        default=True, help_text="Reopen a resolved conversation instead of starting a new one."
    )
    import_contacts = models.BooleanField(default=True, help_text="Create unknown contacts in Chatwoot.")
    enabled = models.BooleanField(default=True)
    # Found by searching the inbox identifier across every account the token can see.
    account_id = models.PositiveBigIntegerField(null=True, blank=True)
    inbox_id = models.PositiveBigIntegerField(null=True, blank=True)
    status = models.CharField(max_length=30, choices=Status.choices, default=Status.INBOX_NOT_FOUND)
    status_reason = models.CharField(max_length=500, blank=True)
    # The receiving token is stored like instance keys: a SHA-256 digest and its first characters (to find
    # the row); `webhook_token` holds it in clear only on the object that issued it, in that request.
    webhook_token_prefix = models.CharField(
        max_length=TOKEN_PREFIX_LENGTH,
        db_index=True,
        editable=False,
        help_text="First characters of the receiving URL's token.",
    )
    webhook_token_digest = models.CharField(max_length=64, unique=True, editable=False)
    # The secret Chatwoot signs this inbox's webhooks with, when its API returned one (Chatwoot 4.13+);
    # known → unsigned or badly signed webhooks are refused. Encrypted, never returned.
    webhook_secret = EncryptedTextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)

    webhook_token: str | None = None

    # Its writes, whatever API makes them, drop the sink's kept answer (integrations.chatwoot.sink).
    objects = WatchedManager()

    def __str__(self) -> str:
        return f"Chatwoot for {self.session_id} ({self.status})"

    def save(self, *args, **kwargs) -> None:
        if not self.webhook_token_digest:  # every integration has a receiving token from its first save
            self.webhook_token_issue()
        super().save(*args, **kwargs)

    def webhook_token_issue(self) -> str:
        """A new receiving token (the old URL stops working once saved); returned, and kept in clear on
        this object only."""
        self.webhook_token = new_webhook_token()
        self.webhook_token_prefix = self.webhook_token[:TOKEN_PREFIX_LENGTH]
        self.webhook_token_digest = digest_of(self.webhook_token)
        return self.webhook_token


class ChatLink(models.Model):
    """A chat of the session and the Chatwoot contact and conversation it is mirrored to."""

    integration = models.ForeignKey(ChatwootIntegration, on_delete=models.CASCADE, related_name="chats")
    chat = models.CharField(max_length=100)
    contact_id = models.PositiveBigIntegerField()
    source_id = models.CharField(max_length=200, blank=True, help_text="The contact inbox's source id.")
    conversation_id = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["integration", "chat"], name="chatwoot_one_link_per_chat")
        ]
        indexes = [models.Index(fields=["integration", "conversation_id"])]

    def __str__(self) -> str:
        return f"{self.chat} → conversation {self.conversation_id}"


class MessageLink(models.Model):
    """A channel message and its Chatwoot message (for quotes, receipts and echo guards)."""

    integration = models.ForeignKey(ChatwootIntegration, on_delete=models.CASCADE, related_name="messages")
    chat = models.CharField(max_length=100)
    message_id = models.CharField(max_length=200)
    chatwoot_id = models.PositiveBigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["integration", "message_id"], name="chatwoot_one_link_per_message"
            )
        ]
        indexes = [models.Index(fields=["integration", "chatwoot_id"])]

    def __str__(self) -> str:
        return f"{self.message_id} → {self.chatwoot_id}"


class MirrorJob(JobColumns):
    """One piece of mirror work, kept until done: a channel event to mirror into Chatwoot (`to_platform`)
    or a Chatwoot event to carry to the customer (`to_customer`). Jobs of one chat run one at a time in
    order of creation; a failed one is retried with back-off and dead-lettered after `max_attempts`."""

    class Direction(models.TextChoices):
        TO_PLATFORM = "to_platform"
        TO_CUSTOMER = "to_customer"

    class Status(models.TextChoices):
        PENDING = "pending"
        SENDING = "sending"
        FAILED = "failed", "failed (will retry)"
        DONE = "done"
        DEAD = "dead"

    integration = models.ForeignKey(ChatwootIntegration, on_delete=models.CASCADE, related_name="jobs")
    direction = models.CharField(max_length=20, choices=Direction.choices)
    kind = models.CharField(max_length=40, help_text="message, message_ack, presence, agent_message…")
    chat = models.CharField(max_length=100, help_text="Order is kept per chat (conversation).")
    payload = models.JSONField(default=dict)
    # Events arriving twice (account webhook and inbox webhook) are recorded once.
    dedupe_key = models.CharField(max_length=120, null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    max_attempts = models.PositiveSmallIntegerField(default=5)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["integration", "dedupe_key"],
                condition=models.Q(dedupe_key__isnull=False),
                name="chatwoot_job_once",
            )
        ]
        indexes = [
            models.Index(fields=["integration", "chat", "status", "id"]),
            models.Index(fields=["status", "next_attempt_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.kind} ({self.direction}) #{self.pk}"
