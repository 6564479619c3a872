from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.fields import EncryptedJSONField, EncryptedTextField
from messaging.instance_keys import instance_key_new


def new_instance_key() -> str:
    """A new instance key in clear: migration 0001 names it as a column default, so it stays importable."""
    return instance_key_new()[0]


class Session(models.Model):
    """A messaging-app account connected through an engine.

    The engine is the authority on the live connection; these fields are Ponte's record of it, kept
    current by `messaging.services.events.engine_event_receive` from what the engine reports.
    """

    class Status(models.TextChoices):
        # Labels show in the account area, in the visitor's language; the API sends the values.
        DISCONNECTED = "disconnected", _("Disconnected")
        QR = "qr", _("Waiting for QR scan")
        CONNECTED = "connected", _("Connected")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="sessions")
    name = models.CharField(max_length=100)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DISCONNECTED)
    status_reason = models.CharField(
        max_length=40,
        blank=True,
        help_text="Why the session is disconnected or limited (logged_out, replaced, banned...).",
    )
    engine = models.CharField(
        max_length=200, blank=True, help_text="Dotted path; empty uses MESSAGING_ENGINE."
    )
    # whatsapp (QR code) or an official channel: whatsapp_cloud, messenger, instagram (messaging/channels/).
    provider = models.CharField(max_length=20, default="whatsapp")
    official = models.BooleanField(default=False)
    jid = models.CharField(max_length=100, blank=True, help_text="Own JID once paired.")
    # May carry the proxy's user and password: encrypted at rest.
    proxy = EncryptedTextField(
        blank=True,
        default="",
        help_text="socks5:// or http:// proxy for this session's WhatsApp connection (overrides "
        "WHATSAPP_PROXY).",
    )
    phone = models.CharField(max_length=30, blank=True)
    # How many contacts the session blocked (kept by messaging.services.chat_records): sends look for a
    # blocked recipient only when there is one, so the send path costs no query for it otherwise.
    blocked_contacts = models.PositiveIntegerField(default=0, db_default=0, editable=False)
    # The instance key is stored as a digest (messaging.instance_keys); `instance_key` holds it in clear
    # only on the object that issued it, in the creating or regenerating request.
    instance_key_prefix = models.CharField(
        max_length=8, db_index=True, editable=False, help_text="First characters of the instance key."
    )
    instance_key_digest = models.CharField(max_length=64, unique=True, editable=False)
    profile_name = models.CharField(max_length=25, blank=True)
    profile_status = models.CharField(max_length=139, blank=True)
    profile_picture = models.BinaryField(null=True, blank=True, editable=False)
    profile_picture_type = models.CharField(max_length=50, blank=True, editable=False)
    qr_code = models.TextField(blank=True, help_text="Current QR text while waiting for a scan.")
    qr_expires_at = models.DateTimeField(null=True, blank=True)
    connected_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["account", "status"])]

    instance_key: str | None = None

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"

    def save(self, *args, **kwargs) -> None:
        if not self.instance_key_digest:  # every session has an instance key from its first save
            self.instance_key_issue()
        super().save(*args, **kwargs)

    def instance_key_issue(self) -> str:
        """Give the session a new instance key (the old one stops working once saved); return it."""
        self.instance_key, self.instance_key_prefix, self.instance_key_digest = instance_key_new()
        return self.instance_key

    @property
    def engine_path(self) -> str:
        from django.conf import settings

        return self.engine or settings.MESSAGING_ENGINE


class Group(models.Model):
    """A group the session belongs to, as last reported by the engine."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="groups")
    jid = models.CharField(max_length=100)
    subject = models.CharField(max_length=100, blank=True)
    subject_time = models.BigIntegerField(default=0, help_text="Unix seconds of the last name change.")
    creation = models.BigIntegerField(default=0, help_text="Unix seconds.")
    owner = models.CharField(max_length=100, blank=True)
    # [{"jid": "...", "admin": true}, ...]
    participants = models.JSONField(default=list, blank=True)
    is_member = models.BooleanField(default=True, help_text="False once the session left the group.")
    description = models.TextField(blank=True, help_text="The group's description (topic).")
    announce = models.BooleanField(default=False, help_text="Only admins send messages.")
    locked = models.BooleanField(default=False, help_text="Only admins edit the group's info.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["subject", "jid"]
        constraints = [models.UniqueConstraint(fields=["session", "jid"], name="one_group_row_per_session")]

    def __str__(self) -> str:
        return f"{self.subject or self.jid}"

    @property
    def size(self) -> int:
        return len(self.participants)


class Message(models.Model):
    """A message sent through the API or received by the session (history, quota, reactions)."""

    class Status(models.TextChoices):
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"  # official channels: refused by the channel, or outside the window
        DELIVERED = "delivered", "Delivered"
        READ = "read", "Read"
        DELETED = "deleted", "Deleted"

    class Direction(models.TextChoices):
        OUTBOUND = "outbound", "Sent through the API"
        INBOUND = "inbound", "Received by the session"

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="messages")
    message_id = models.CharField(max_length=100)
    chat = models.CharField(max_length=100, help_text="Chat JID (individual or group).")
    sender = models.CharField(max_length=100, blank=True, help_text="Sender JID.")
    push_name = models.CharField(max_length=100, blank=True)
    from_me = models.BooleanField(default=False)
    direction = models.CharField(max_length=10, choices=Direction.choices, default=Direction.OUTBOUND)
    type = models.CharField(max_length=20, default="text")
    content = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SENT)
    timestamp = models.DateTimeField(default=timezone.now)
    # {"<reactor JID>": "<emoji>"}
    reactions = models.JSONField(default=dict, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    edited_at = models.DateTimeField(null=True, blank=True, help_text="When its text was last edited.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-timestamp", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "chat", "message_id"], name="one_message_per_chat_id")
        ]
        indexes = [
            models.Index(fields=["session", "chat", "timestamp"]),
            models.Index(fields=["direction", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.message_id} in {self.chat}"


class DailyMessageCount(models.Model):
    """Messages an account sent on one calendar day (MESSAGING_QUOTA_TIME_ZONE): the daily quota.

    One row per account and day, incremented under a row lock in the sending transaction, so the
    check costs the same however many messages were sent, and a rolled-back send is not counted.
    """

    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE, related_name="message_days")
    day = models.DateField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["account", "day"], name="one_message_count_per_day")]

    def __str__(self) -> str:
        return f"{self.account} {self.day}: {self.count}"


# --- Sandbox engine state ------------------------------------------------------------------------
# The SandboxEngine (messaging/engines/sandbox.py) plays the part of WhatsApp's servers and the phone.
# Its state lives here, in the database, so every web process sees the same sandbox.


class SandboxDevice(models.Model):
    """What the sandbox's "WhatsApp servers" know about one session."""

    session_id = models.UUIDField(unique=True)
    credentials = EncryptedJSONField(
        null=True, blank=True, editable=False, help_text="Pairing keys, encrypted; null when logged out."
    )
    qr_serial = models.PositiveIntegerField(default=0)
    qr_code = models.TextField(blank=True)
    qr_expires_at = models.DateTimeField(null=True, blank=True)
    pairing_phone = models.CharField(max_length=30, blank=True)
    pairing_code = models.CharField(max_length=9, blank=True)
    pairing_expires_at = models.DateTimeField(null=True, blank=True)
    jid = models.CharField(max_length=100, blank=True)
    push_name = models.CharField(max_length=25, blank=True)
    about = models.CharField(max_length=139, blank=True)
    picture_sha256 = models.CharField(max_length=64, blank=True)
    message_serial = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name = "sandbox device"

    def __str__(self) -> str:
        return f"sandbox {self.session_id}"


class SandboxGroup(models.Model):
    """A group on the sandbox's "servers", as seen by one session."""

    device = models.ForeignKey(SandboxDevice, on_delete=models.CASCADE, related_name="groups")
    jid = models.CharField(max_length=100)
    subject = models.CharField(max_length=100)
    subject_time = models.BigIntegerField()
    creation = models.BigIntegerField()
    owner = models.CharField(max_length=100)
    # {"<jid>": true if admin}
    participants = models.JSONField(default=dict)
    picture_sha256 = models.CharField(max_length=64, blank=True)
    description = models.TextField(blank=True)
    announce = models.BooleanField(default=False)
    locked = models.BooleanField(default=False)
    # The current invite code ("" until asked for); a revoked code is replaced, so it stops working.
    invite_code = models.CharField(max_length=40, blank=True, db_index=True)
    invite_serial = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = "sandbox group"
        constraints = [models.UniqueConstraint(fields=["device", "jid"], name="one_sandbox_group_per_device")]

    def __str__(self) -> str:
        return self.jid


class WhatsAppDevice(models.Model):
    """Which whatsmeow device (in the store, messaging.engines.whatsapp.store) a session is paired as.

    whatsmeow keeps the device's keys in its own `whatsmeow_*` tables of Ponte's database; this row
    links the session to them, and is removed with them on logout and delete.
    """

    session_id = models.UUIDField(unique=True)
    jid = models.CharField(max_length=100, blank=True, help_text="The device JID (user.agent:device@server).")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "WhatsApp device"

    def __str__(self) -> str:
        return f"whatsapp {self.session_id}"


# --- Polls and idempotent sends --------------------------------------------------------------------


class Poll(models.Model):
    """A poll sent by the session (or seen in one of its chats): its question and options, so votes,
    which name options (or, on WhatsApp, their hashes), can be counted (GET /api/messages/poll-results)."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="polls")
    chat = models.CharField(max_length=100)
    message_id = models.CharField(max_length=100)
    name = models.CharField(max_length=255)
    options = models.JSONField(default=list, help_text="The option names, in order.")
    selectable_count = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "message_id"], name="one_poll_per_message_id")
        ]

    def __str__(self) -> str:
        return f"poll {self.message_id}: {self.name}"


class PollVote(models.Model):
    """A voter's current choice in a poll: each vote replaces the voter's last (an empty list clears it)."""

    poll = models.ForeignKey(Poll, on_delete=models.CASCADE, related_name="votes")
    voter = models.CharField(max_length=100)
    selected = models.JSONField(default=list, help_text="The option names chosen.")
    voted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["poll", "voter"], name="one_vote_per_voter")]

    def __str__(self) -> str:
        return f"{self.voter} in {self.poll_id}"


class IdempotencyRecord(models.Model):
    """One `Idempotency-Key` of one API key on the message routes (messaging.idempotency): in flight
    until the reply is stored, then replayed for 24 hours to a request with the same key and body."""

    api_key = models.ForeignKey(
        "accounts.ApiKey", on_delete=models.CASCADE, related_name="idempotency_records"
    )
    key = models.CharField(max_length=255)
    body_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Null while in flight.")
    reply = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["api_key", "key"], name="one_idempotency_key_per_api_key")
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.status_code or 'in flight'})"


# --- Chats, contacts and per-session behaviour ------------------------------------------------------


class Chat(models.Model):
    """A conversation of the session, kept in step with its messages (messaging.services.directory):
    written in the transaction that records each message, so the list costs no scan of the history."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="chats")
    jid = models.CharField(max_length=100)
    name = models.CharField(max_length=100, blank=True)
    is_group = models.BooleanField(default=False)
    unread_count = models.PositiveIntegerField(default=0)
    last_message_at = models.DateTimeField(null=True, blank=True)
    archived = models.BooleanField(default=False)
    # The chat's state on the phone (messaging.services.chat_state): set through the API or reported.
    pinned = models.BooleanField(default=False, db_default=False)
    muted_until = models.DateTimeField(null=True, blank=True)
    marked_unread = models.BooleanField(default=False, db_default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "jid"], name="one_chat_row_per_session")]
        indexes = [models.Index(fields=["session", "-last_message_at"], name="chat_newest_first")]

    def __str__(self) -> str:
        return self.name or self.jid


class Contact(models.Model):
    """Someone the session has seen: a sender's push name, a contact card's name, a group participant."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="contacts")
    jid = models.CharField(max_length=100)
    name = models.CharField(max_length=100, blank=True, help_text="A name given in a contact card.")
    push_name = models.CharField(max_length=100, blank=True, help_text="The name the person chose.")
    blocked = models.BooleanField(
        default=False, db_default=False, help_text="Blocked by the session (contact_block)."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "jid"], name="one_contact_row_per_session")]

    def __str__(self) -> str:
        return self.name or self.push_name or self.jid


class SessionSettings(models.Model):
    """How the session behaves on its own (`GET/PUT /api/sessions/{id}/settings`); no row: all off.
    The engines read it where the behaviour applies (messaging.engines.behaviour)."""

    session = models.OneToOneField(Session, on_delete=models.CASCADE, related_name="settings")
    reject_calls = models.BooleanField(default=False)
    reject_call_message = models.CharField(max_length=500, blank=True)
    ignore_groups = models.BooleanField(default=False)
    read_messages = models.BooleanField(default=False)
    always_online = models.BooleanField(default=False)
    sync_full_history = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "session settings"

    def __str__(self) -> str:
        return f"settings of {self.session_id}"


# Models kept in modules of their own (the LID map, labels, status and channels); imported here so Django
# finds them.
from messaging.lid_models import LidMapping  # noqa: E402, F401
from messaging.models_labels import ChatLabel, Label  # noqa: E402, F401
from messaging.status_models import Newsletter, SandboxNewsletter, StatusPost  # noqa: E402, F401
