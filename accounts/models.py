from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


class TimeStampedModel(models.Model):
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class Plan(TimeStampedModel):
    """A plan's limits. Null means unlimited. Staff edit plans in the admin."""

    name = models.CharField(max_length=50, unique=True)
    requests_per_minute = models.PositiveIntegerField(null=True, blank=True)
    max_active_sessions = models.PositiveIntegerField(default=1)
    messages_per_day = models.PositiveIntegerField(null=True, blank=True)
    max_webhooks = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Account(TimeStampedModel):
    """A customer of Ponte: owns keys, sessions, webhooks and subscriptions."""

    name = models.SlugField(max_length=80, unique=True, help_text="Short unique name, used by the CLI.")
    customer = models.CharField(max_length=200, help_text="Customer's legal or display name.")
    email = models.EmailField(blank=True)
    plan = models.ForeignKey(Plan, on_delete=models.PROTECT, related_name="accounts")
    is_active = models.BooleanField(default=True)
    # The customer's sign-in to the account area (/account/); empty for accounts staff run alone.
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="customer_account",
        help_text="The user who signs in to this account's area at /account/.",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Subscription(TimeStampedModel):
    class Product(models.TextChoices):
        BONDS = "bonds", "Bonds"

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        PAST_DUE = "past_due", "Past due"
        CANCELED = "canceled", "Canceled"
        # Asked for in the account area, awaiting staff approval (the admin's action): no access yet.
        REQUESTED = "requested", "Requested"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="subscriptions")
    product = models.CharField(max_length=20, choices=Product.choices, default=Product.BONDS)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE)
    current_period_end = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "product"], name="one_subscription_per_product"),
        ]

    def __str__(self) -> str:
        return f"{self.account} · {self.product} · {self.status}"


class ApiKey(TimeStampedModel):
    """An API key. Only a SHA-256 digest of the secret is stored; the full key is shown once."""

    class Role(models.TextChoices):
        ADMIN = "admin", "Admin"
        OPERATOR = "operator", "Operator"
        VIEWER = "viewer", "Viewer"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100, blank=True)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)
    prefix = models.CharField(max_length=16, unique=True, editable=False)
    digest = models.CharField(max_length=64, editable=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    allowed_ips = models.JSONField(
        default=list, blank=True, help_text="IP addresses or CIDRs; empty allows any address."
    )
    allowed_sessions = models.JSONField(
        default=list, blank=True, help_text="Session UUIDs this key may touch; empty allows all."
    )
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.role}, {self.account})"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    def is_expired(self, now: timezone.datetime | None = None) -> bool:
        return self.expires_at is not None and self.expires_at <= (now or timezone.now())

    @property
    def status(self) -> str:
        if self.is_revoked:
            return "revoked"
        if self.is_expired():
            return "expired"
        return "active"

    def allows_session(self, session_id: uuid.UUID | str) -> bool:
        return not self.allowed_sessions or str(session_id) in {str(s) for s in self.allowed_sessions}
