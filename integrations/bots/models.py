"""A bot, its conversations (one per chat it has answered) and its jobs (answers to run, messages the
session sent by other means to look at)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from core.fields import EncryptedTextField
from core.writes import WatchedManager
from jobs.columns import JobColumns


class Bot(models.Model):
    class Kind(models.TextChoices):
        HTTP = "http"
        OPENAI = "openai"
        TYPEBOT = "typebot"

    class Trigger(models.TextChoices):
        ALL = "all", "every message"
        KEYWORD = "keyword", "a keyword"
        FIRST_MESSAGE = "first_message", "the first message of a chat"

    class Operator(models.TextChoices):
        EQUALS = "equals"
        CONTAINS = "contains"
        REGEX = "regex"

    session = models.ForeignKey("messaging.Session", on_delete=models.CASCADE, related_name="bots")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    enabled = models.BooleanField(default=True)
    priority = models.PositiveSmallIntegerField(
        default=100, help_text="Lower first: of the bots whose trigger matches, the first answers."
    )
    # The kind's settings without its secret (url, baseUrl, model, systemPrompt, typebot, ...).
    settings = models.JSONField(default=dict, blank=True)
    # The kind's secret: the http kind's signing secret, the openai kind's API key, Typebot's token.
    secret = EncryptedTextField(blank=True, default="")
    trigger = models.CharField(max_length=15, choices=Trigger.choices, default=Trigger.ALL)
    trigger_operator = models.CharField(max_length=10, choices=Operator.choices, default=Operator.CONTAINS)
    trigger_value = models.CharField(max_length=200, blank=True)
    ignore_groups = models.BooleanField(default=True)
    stop_keyword = models.CharField(max_length=50, blank=True, default="#sair")
    expire_minutes = models.PositiveIntegerField(
        default=60, help_text="A conversation idle this long ends (0: never)."
    )
    pause_minutes = models.PositiveIntegerField(
        default=60, help_text="How long a message sent by a person (not the bot) pauses the bot in that chat."
    )
    debounce_seconds = models.PositiveSmallIntegerField(
        default=3, help_text="Messages arriving within this window are answered once, joined."
    )
    consecutive_failures = models.PositiveIntegerField(default=0)
    disabled_reason = models.CharField(max_length=300, blank=True)
    last_error = models.CharField(max_length=1000, blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    # Every write, whatever API makes it, drops the sink's kept lookup (integrations.bots.sink).
    objects = WatchedManager()

    class Meta:
        ordering = ["session", "priority", "id"]
        indexes = [models.Index(fields=["session", "enabled", "priority"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class Conversation(models.Model):
    """What a bot keeps of one chat: whether it is talking there, paused (a person took over) or done,
    and the kind's state (Typebot's session id)."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        ENDED = "ended"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="conversations")
    chat = models.CharField(max_length=100)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    paused_until = models.DateTimeField(null=True, blank=True)
    state = models.JSONField(default=dict, blank=True)
    # The ids of the messages the bot sent lately: their echoes are not a person taking over.
    sent_ids = models.JSONField(default=list, blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    last_activity_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "chat"], name="one_bot_conversation_per_chat")]
        indexes = [models.Index(fields=["bot", "status", "last_activity_at"])]

    def __str__(self) -> str:
        return f"{self.bot_id}:{self.chat}"


class BotJob(JobColumns):
    """One piece of bot work in a chat, run in order per (bot, chat): `answer` (the customer's messages
    since the last answer, joined after the debounce window) or `outgoing` (a message the session sent:
    the bot's own echo, or a person taking over)."""

    class Kind(models.TextChoices):
        ANSWER = "answer"
        OUTGOING = "outgoing"

    class Status(models.TextChoices):
        PENDING = "pending"
        SENDING = "sending"
        FAILED = "failed", "failed (will retry)"
        DONE = "done"
        DEAD = "dead"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="jobs")
    chat = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # answer: [{id, text, type, pushName, body}] of the messages joined; outgoing: [{id}].
    messages = models.JSONField(default=list)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    max_attempts = models.PositiveSmallIntegerField(default=5)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["bot", "chat", "status", "id"]),
            models.Index(fields=["status", "next_attempt_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.chat})"
