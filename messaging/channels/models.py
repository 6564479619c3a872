"""What Ponte keeps per official session: its credentials (encrypted), templates, conversation windows.

Models of the `channels` app (messaging.channels.apps). They were models of the `messaging` app until
channels 0001 moved them here in Django's state only: their tables keep their `messaging_` names.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from core.fields import EncryptedJSONField
from jobs.columns import JobColumns


class ChannelAccount(models.Model):
    """An official session's Graph API credentials, encrypted at rest and never returned by the API."""

    session = models.OneToOneField("messaging.Session", on_delete=models.CASCADE, related_name="channel")
    # Cloud API: phoneNumberId, businessAccountId, accessToken, appSecret, verifyToken.
    # Messenger/Instagram: pageId, pageAccessToken, appSecret, verifyToken.
    credentials = EncryptedJSONField(null=True, editable=False, help_text="Encrypted; null after logout.")
    display_name = models.CharField(max_length=200, blank=True, help_text="As the Graph API names it.")
    verified_at = models.DateTimeField(default=timezone.now)
    disconnect_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        db_table = "messaging_channelaccount"

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
        db_table = "messaging_channeltemplate"
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
        db_table = "messaging_channelconversation"
        constraints = [models.UniqueConstraint(fields=["session", "chat"], name="one_conversation_per_chat")]

    def __str__(self) -> str:
        return f"{self.chat} (last customer message {self.last_customer_at})"


class ChannelInboundBatch(JobColumns):
    """Up to `messaging.channels.queue.BATCH_ITEMS` items of one signed webhook body, stored by the view
    before it answers and recorded by a worker (messaging.channels.queue): a job of the job system, run
    in order per session. `body` is a body of Meta's shape holding just those items (messaging.channels.
    split), as JSON text: the worker cleans and parses it (a text column holds what a JSON column would
    refuse, such as an escaped NUL). Rows done are purged after a day."""

    class Status(models.TextChoices):
        PENDING = "pending"
        SENDING = "sending"
        FAILED = "failed", "failed (will retry)"
        DONE = "done"
        DEAD = "dead"

    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="+")
    body = models.TextField()
    item_count = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    max_attempts = models.PositiveSmallIntegerField(default=10)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "messaging_channelinboundbatch"
        ordering = ["id"]
        indexes = [
            # A session's head (jobs.queue.Queue.claim): only unfinished rows.
            models.Index(
                fields=["session", "id"],
                condition=models.Q(status__in=["pending", "failed", "sending"]),
                name="inbound_unfinished_by_session",
            ),
            models.Index(
                fields=["next_attempt_at"],
                condition=models.Q(status__in=["pending", "failed"]),
                name="inbound_waiting",
            ),
            models.Index(fields=["claimed_at"], condition=models.Q(status="sending"), name="inbound_sending"),
            models.Index(fields=["finished_at"], condition=models.Q(status="done"), name="inbound_done"),
            models.Index(fields=["dead_at"], condition=models.Q(status="dead"), name="inbound_dead"),
        ]

    def __str__(self) -> str:
        return f"inbound batch #{self.pk} of {self.session_id} ({self.status})"


class ChannelCall(JobColumns):
    """A Graph API call an inbound message asks for, made after the message was recorded
    (messaging.channels.calls): never inside the recording transaction nor under the session's row lock.
    `mark_read`: the read receipt of a session that reads messages at once; `profile`: the name of a
    Messenger or Instagram customer not known yet (messaging.channels.profiles)."""

    class Kind(models.TextChoices):
        MARK_READ = "mark_read"
        PROFILE = "profile"

    class Status(models.TextChoices):
        PENDING = "pending"
        SENDING = "sending"
        FAILED = "failed", "failed (will retry)"
        DONE = "done"
        DEAD = "dead"

    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="+")
    chat = models.CharField(max_length=100)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    message_id = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    max_attempts = models.PositiveSmallIntegerField(default=5)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "messaging_channelcall"
        ordering = ["id"]
        indexes = [
            models.Index(
                fields=["session", "chat", "id"],
                condition=models.Q(status__in=["pending", "failed", "sending"]),
                name="call_unfinished_by_chat",
            ),
            models.Index(
                fields=["next_attempt_at"],
                condition=models.Q(status__in=["pending", "failed"]),
                name="call_waiting",
            ),
            models.Index(fields=["claimed_at"], condition=models.Q(status="sending"), name="call_sending"),
            models.Index(fields=["finished_at"], condition=models.Q(status="done"), name="call_done"),
            models.Index(fields=["dead_at"], condition=models.Q(status="dead"), name="call_dead"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {self.message_id} ({self.status})"
