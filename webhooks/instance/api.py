"""The instance interface, mounted at /instances/: the instance key in the path is the
credential. Errors come as `{"status": 404, "error": "INSTANCE_NOT_FOUND", "message": "..."}`.

* `GET|PUT /instances/<instance_key>/instance`: the instance-webhook configuration;
* `GET /instances/<instance_key>/instance/webhook/statistics`: delivery statistics (7 days).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.api_fields import StrictBooleanField
from core.errors import ValidationFailed
from webhooks.instance import services as instance
from webhooks.instance import statistics
from webhooks.instance.bases import InstanceAPIView
from webhooks.instance.guard import instance_session_for
from webhooks.models import InstanceWebhookConfig

_URL_HELP = "http(s) URL reaching a public address; empty = use webhookMessage."


class InstanceConfigSerializer(serializers.Serializer):
    allowWebhook = StrictBooleanField(required=False, help_text="Enables delivery.")
    allowNumber = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=500,
        help_text='"all", or comma-separated phone numbers whose messages are forwarded.',
    )
    webhookFormat = serializers.ChoiceField(
        choices=InstanceWebhookConfig.Format.values, required=False, help_text="meta or plain."
    )
    webhookMessage = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="Default URL of every event."
    )
    webhookGroup = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text=_URL_HELP
    )
    webhookConnection = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text=_URL_HELP
    )
    webhookQrCode = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text=_URL_HELP
    )
    webhookMessageFromMe = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text=_URL_HELP
    )
    webhookHistory = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text=_URL_HELP
    )


class InstanceConfigOutputSerializer(serializers.Serializer):
    allowWebhook = serializers.BooleanField()
    allowNumber = serializers.CharField()
    webhookFormat = serializers.CharField()
    webhookMessage = serializers.CharField()
    webhookGroup = serializers.CharField()
    webhookConnection = serializers.CharField()
    webhookQrCode = serializers.CharField()
    webhookMessageFromMe = serializers.CharField()
    webhookHistory = serializers.CharField()


_CONFIG_REPLY = inline_serializer(
    "InstanceConfigReply", {"status": serializers.IntegerField(), "data": InstanceConfigOutputSerializer()}
)


class InstanceConfigApi(InstanceAPIView):
    @extend_schema(operation_id="instance_webhook_config_get", responses=_CONFIG_REPLY)
    def get(self, request: Request, instance_key: str) -> Response:
        session = instance_session_for(request, instance_key)
        config = instance.instance_config_of(session)
        return Response({"status": 200, "data": instance.instance_config_data(config)})

    @extend_schema(
        operation_id="instance_webhook_config_put", request=InstanceConfigSerializer, responses=_CONFIG_REPLY
    )
    def put(self, request: Request, instance_key: str) -> Response:
        session = instance_session_for(request, instance_key)
        if isinstance(request.data, dict):
            unknown = sorted(set(request.data) - set(instance.SETTINGS))
            if unknown:
                raise ValidationFailed(
                    f"unknown field(s) {', '.join(unknown)}; accepted: {', '.join(instance.SETTINGS)}"
                )
        data = InstanceConfigSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = {instance.SETTINGS[name]: value for name, value in data.validated_data.items()}
        config = instance.instance_config_update(session=session, **values)
        return Response({"status": 200, "data": instance.instance_config_data(config)})


_LAST = inline_serializer(
    "InstanceDeliveryLast",
    {
        "ts": serializers.CharField(),
        "status": serializers.IntegerField(allow_null=True),
        "ms": serializers.IntegerField(),
        "outcome": serializers.CharField(),
    },
    allow_null=True,
)
_RECENT = inline_serializer(
    "InstanceDeliveryRecent",
    {
        "id": serializers.CharField(help_text="x-webhook-id of the delivery"),
        "ts": serializers.CharField(),
        "status": serializers.IntegerField(allow_null=True),
        "duration": serializers.IntegerField(allow_null=True),
        "error": serializers.CharField(allow_null=True),
        "outcome": serializers.CharField(),
        "event": serializers.CharField(),
        "attempts": serializers.IntegerField(),
        "state": serializers.CharField(),
    },
    many=True,
)
_STATISTICS_REPLY = inline_serializer(
    "InstanceWebhookStatistics",
    {
        "status": serializers.IntegerField(),
        "data": inline_serializer(
            "InstanceWebhookStatisticsData",
            {
                "official": serializers.BooleanField(),
                "webhook": inline_serializer(
                    "InstanceWebhookStatisticsWebhook",
                    {
                        "allowNumber": serializers.CharField(),
                        "webhookFormat": serializers.CharField(),
                        "configured": serializers.ListField(child=serializers.CharField()),
                        "anyUrl": serializers.BooleanField(),
                    },
                ),
                "delivery": inline_serializer(
                    "InstanceWebhookStatisticsDelivery",
                    {
                        "queued": serializers.IntegerField(),
                        "attempts": serializers.IntegerField(),
                        "ok": serializers.IntegerField(),
                        "clientError": serializers.IntegerField(),
                        "failed": serializers.IntegerField(),
                        "avgMs": serializers.IntegerField(),
                        "last": _LAST,
                        "recent": _RECENT,
                    },
                ),
                "queue": inline_serializer(
                    "InstanceWebhookStatisticsQueue",
                    {
                        "waiting": serializers.IntegerField(),
                        "active": serializers.IntegerField(),
                        "failed": serializers.IntegerField(),
                        "scope": serializers.CharField(),
                    },
                ),
            },
        ),
    },
)


class InstanceWebhookStatisticsApi(InstanceAPIView):
    @extend_schema(operation_id="instance_webhook_statistics", responses=_STATISTICS_REPLY)
    def get(self, request: Request, instance_key: str) -> Response:
        session = instance_session_for(request, instance_key)
        return Response({"status": 200, "data": statistics.instance_statistics(session=session)})
