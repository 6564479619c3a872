"""The webhook record of the gateway: the secret is never part of it."""

from __future__ import annotations

from rest_framework import serializers

from webhooks.models import Webhook


class WebhookOutputSerializer(serializers.Serializer):
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
    createdAt = serializers.DateTimeField(source="created_at")
    updatedAt = serializers.DateTimeField(
        source="updated_at", required=False, help_text="Present once the webhook has been patched."
    )

    def get_hasSecret(self, webhook: Webhook) -> bool:
        return bool(webhook.secret)

    def to_representation(self, instance: Webhook) -> dict:
        data = super().to_representation(instance)
        if instance.updated_at is None:
            data.pop("updatedAt")
        return data
