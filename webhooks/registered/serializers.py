"""The webhook record of the gateway: the secret is never part of it; header values only for admins."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from webhooks.models import Webhook
from webhooks.registered.custom_headers import header_names


class WebhookOutputSerializer(serializers.Serializer):
    """`context["header_values"]`: show the custom headers' values (admin keys); other roles get names."""

    id = serializers.CharField()
    sessionId = serializers.UUIDField(source="session_id")
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField())
    retryCount = serializers.IntegerField(source="retry_count")
    rateLimit = serializers.IntegerField(
        source="rate_limit", allow_null=True, help_text="Deliveries per second at most; null: no limit."
    )
    hasSecret = serializers.SerializerMethodField(
        help_text="Whether deliveries are signed; the secret itself is never returned."
    )
    previousSecretExpiresAt = serializers.SerializerMethodField(
        help_text="While a rotated-out secret still signs too (secret/rotate): when it stops; else null."
    )
    headerNames = serializers.SerializerMethodField(help_text="Names of the custom headers (every role).")
    headers = serializers.SerializerMethodField(
        required=False,
        help_text="Custom headers with their values: only in replies to admin keys (values are secrets).",
    )
    status = serializers.ChoiceField(choices=Webhook.Status.choices)
    disabledReason = serializers.CharField(
        source="disabled_reason", allow_null=True, help_text="Why it was disabled; null while active."
    )
    disabledAt = serializers.DateTimeField(source="disabled_at", allow_null=True)
    createdAt = serializers.DateTimeField(source="created_at")
    updatedAt = serializers.DateTimeField(
        source="updated_at", required=False, help_text="Present once the webhook has been patched."
    )

    def get_hasSecret(self, webhook: Webhook) -> bool:
        return bool(webhook.secret)

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_previousSecretExpiresAt(self, webhook: Webhook) -> str | None:
        expires = webhook.previous_secret_expires_at
        if expires is None or expires <= timezone.now():
            return None
        return serializers.DateTimeField().to_representation(expires)

    def get_headerNames(self, webhook: Webhook) -> list[str]:
        return header_names(webhook.headers)

    @extend_schema_field(serializers.DictField(child=serializers.CharField()))
    def get_headers(self, webhook: Webhook) -> dict[str, str]:
        return dict(webhook.headers or {})

    def to_representation(self, instance: Webhook) -> dict:
        data = super().to_representation(instance)
        if instance.updated_at is None:
            data.pop("updatedAt")
        if not self.context.get("header_values"):
            data.pop("headers")
        if instance.status == Webhook.Status.ACTIVE:
            data["disabledReason"] = None
        return data
