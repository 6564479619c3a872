"""The delivery log's records over the gateway: a delivery row, and the detail with its body and its
attempts (each with the first KiB of what the receiver answered)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from webhooks.models import Delivery, DeliveryAttempt

RESPONSE_BODY_BYTES = 1024
_WAITING = (Delivery.Status.PENDING, Delivery.Status.FAILED)


def first_kib(text: str) -> str:
    """The first 1,024 bytes of an answer as the attempt stored it (UTF-8 text; bytes that were not
    UTF-8 read as U+FFFD), never cutting a character in two."""
    return text.encode()[:RESPONSE_BODY_BYTES].decode("utf-8", errors="ignore")


class DeliveryRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The delivery's id (GET /gateway/deliveries/{id}).")
    eventId = serializers.CharField(
        source="dispatch_id", help_text="The webhook-id (x-webhook-id) header: the same on every attempt."
    )
    event = serializers.SerializerMethodField(help_text="The event's name, e.g. message.")
    webhookId = serializers.CharField(
        source="webhook_id", allow_null=True, help_text="null once the webhook was deleted."
    )
    sessionId = serializers.UUIDField(source="session_id")
    status = serializers.ChoiceField(
        choices=Delivery.Status.choices,
        help_text="pending (waiting for its first attempt), sending (an attempt is on its way), delivered, "
        "failed (an attempt failed, the next is scheduled), dead (every attempt failed: a dead letter).",
    )
    attempts = serializers.IntegerField(source="attempt_count", help_text="Attempts made so far.")
    maxAttempts = serializers.IntegerField(source="max_attempts")
    lastStatusCode = serializers.IntegerField(source="last_status_code", allow_null=True)
    lastError = serializers.SerializerMethodField()
    createdAt = serializers.DateTimeField(source="created_at")
    nextAttemptAt = serializers.SerializerMethodField(
        help_text="When the next attempt is due; null unless waiting."
    )
    deliveredAt = serializers.DateTimeField(source="delivered_at", allow_null=True)
    deadAt = serializers.DateTimeField(source="dead_at", allow_null=True)

    def get_event(self, delivery: Delivery) -> str:
        return delivery.event.name

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_lastError(self, delivery: Delivery) -> str | None:
        return delivery.last_error or None

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_nextAttemptAt(self, delivery: Delivery) -> str | None:
        if delivery.status not in _WAITING:
            return None
        return serializers.DateTimeField().to_representation(delivery.next_attempt_at)


class DeliveryAttemptSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    at = serializers.DateTimeField(source="started_at", help_text="When the POST started.")
    statusCode = serializers.IntegerField(
        source="status_code", allow_null=True, help_text="null: no answer (timeout, connection error)."
    )
    durationMs = serializers.IntegerField(source="duration_ms")
    error = serializers.SerializerMethodField()
    responseBody = serializers.SerializerMethodField(
        help_text="The first 1,024 bytes of the answer's body, as received (UTF-8 text)."
    )
    outcome = serializers.CharField(help_text="What the attempt decided: delivered, retry or dead.")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_error(self, attempt: DeliveryAttempt) -> str | None:
        return attempt.error or None

    def get_responseBody(self, attempt: DeliveryAttempt) -> str:
        return first_kib(attempt.response_excerpt)


class DeliveryDetailSerializer(DeliveryRowSerializer):
    """The row with the body and every attempt, oldest first: here `attempts` is the list, not a count."""

    payload = serializers.JSONField(help_text="The JSON body POSTed (the same on every attempt).")
    attempts = DeliveryAttemptSerializer(many=True, source="attempt_list")
