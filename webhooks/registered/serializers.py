"""The webhook record of the gateway: the secret is never part of it; header values only for admins."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from webhooks.models import Webhook
from webhooks.registered.custom_headers import header_names
from webhooks.schedules import MAX_SCHEDULE_DELAY, MAX_SCHEDULE_STEPS

RETRY_SCHEDULE_HELP = (
    '"seed" (the default: after 0, 1, 4, 16, 64 s, `retryCount` attempts), "extended" (at once, then 5 s, '
    f"5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 27.5 h) or a list of 1 to {MAX_SCHEDULE_STEPS} delays in "
    f"seconds between attempts (each 0 to {MAX_SCHEDULE_DELAY:,}); the last two with +-10 % jitter. A "
    "delivery becomes a dead letter after the schedule's last attempt."
)


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "enum": ["seed", "extended"]},
            {
                "type": "array",
                "items": {"type": "integer", "minimum": 0, "maximum": MAX_SCHEDULE_DELAY},
                "minItems": 1,
                "maxItems": MAX_SCHEDULE_STEPS,
            },
        ]
    }
)
class RetryScheduleField(serializers.JSONField):
    """`retrySchedule`: a name or a list of delays (webhooks.schedules.retry_schedule_clean checks it)."""


ORDERING_HELP = (
    '"parallel" (the default): each event is sent as soon as a worker can. "fifo": a chat\'s next event '
    "waits until its previous one is delivered or dead-lettered; other chats and events without a chat "
    "(session events) do not wait."
)
FILTER_HELP = (
    "Conditions on the delivered body, all of which must hold; an event that does not match is not "
    'delivered (no delivery, not counted). Keys are dotted paths ("data.fromMe"); a value means equal, or '
    'an object of operators $eq, $ne, $in, $nin (lists) and $exists (true/false), e.g. {"data.fromMe": '
    'false, "data.type": {"$in": ["image", "video"]}}. At most 20 conditions; null or {} for every event.'
)


# "object" only: drf-spectacular adds "null" itself for the field's allow_null (twice was invalid 3.1).
@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {
            "oneOf": [
                {"type": ["string", "number", "boolean", "null"]},
                {
                    "type": "object",
                    "properties": {
                        "$eq": {"type": ["string", "number", "boolean", "null"]},
                        "$ne": {"type": ["string", "number", "boolean", "null"]},
                        "$in": {"type": "array", "items": {"type": ["string", "number", "boolean", "null"]}},
                        "$nin": {"type": "array", "items": {"type": ["string", "number", "boolean", "null"]}},
                        "$exists": {"type": "boolean"},
                    },
                    "additionalProperties": False,
                },
            ]
        },
    }
)
class BodyFilterField(serializers.JSONField):
    """`filter`: conditions on the delivered body (webhooks.body_filters.filter_clean checks them)."""


class WebhookOutputSerializer(serializers.Serializer):
    """`context["header_values"]`: show the custom headers' values (admin keys); other roles get names."""

    id = serializers.CharField()
    sessionId = serializers.UUIDField(source="session_id")
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField())
    retryCount = serializers.IntegerField(source="retry_count")
    retrySchedule = RetryScheduleField(source="retry_schedule", help_text=RETRY_SCHEDULE_HELP)
    filter = BodyFilterField(allow_null=True, help_text=FILTER_HELP)
    ordering = serializers.ChoiceField(choices=Webhook.Ordering.choices, help_text=ORDERING_HELP)
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
