"""Gateway endpoints of registered webhooks: `/gateway/webhooks[/{id}]`.

Viewers read; operators and admins manage. A key limited to some sessions sees and manages only the
webhooks of those sessions. Errors come in the gateway shape `{"error": "..."}`.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api_bases import KeyedAPIView, KeyedListAPIView
from accounts.permissions import ReadOrOperate
from webhooks import services
from webhooks.catalogue import EVENTS
from webhooks.models import Webhook
from webhooks.registered import selectors
from webhooks.registered.filters import WebhookFilterSet
from webhooks.registered.serializers import WebhookOutputSerializer

_EVENTS_HELP = f"Event names: {', '.join(EVENTS)}; aliases messages, connection, session.connected accepted."
_RETRY_HELP = (
    f"Attempts per event, {Webhook.MIN_RETRY_COUNT} to {Webhook.MAX_RETRY_COUNT}, "
    f"default {Webhook.DEFAULT_RETRY_COUNT}."
)


class WebhookListCreateApi(KeyedListAPIView):
    permission_classes = [ReadOrOperate]
    filterset_class = WebhookFilterSet

    class InputSerializer(serializers.Serializer):
        sessionId = serializers.CharField()
        url = serializers.CharField(max_length=2000)
        secret = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")
        events = serializers.ListField(child=serializers.CharField(max_length=40), help_text=_EVENTS_HELP)
        retryCount = serializers.IntegerField(required=False, allow_null=True, help_text=_RETRY_HELP)

        class Meta:
            ref_name = "WebhookCreate"

    @extend_schema(
        operation_id="gateway_webhooks_list",
        responses=inline_serializer("WebhookList", {"data": WebhookOutputSerializer(many=True)}),
    )
    def get(self, request: Request) -> Response:
        webhooks = self.filter_queryset(selectors.webhook_list(key=self.api_key))
        return Response({"data": WebhookOutputSerializer(webhooks, many=True).data})

    @extend_schema(
        operation_id="gateway_webhooks_create", request=InputSerializer, responses=WebhookOutputSerializer
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        self.require_session(values["sessionId"])
        webhook = services.webhook_create(
            account=self.api_key.account,
            session_id=values["sessionId"],
            url=values["url"],
            events=values["events"],
            secret=values["secret"],
            retry_count=values.get("retryCount"),
        )
        return Response(WebhookOutputSerializer(webhook).data)


class WebhookDetailApi(KeyedAPIView):
    permission_classes = [ReadOrOperate]

    class InputSerializer(serializers.Serializer):
        url = serializers.CharField(required=False, max_length=2000)
        secret = serializers.CharField(required=False, allow_blank=True, max_length=500)
        events = serializers.ListField(
            child=serializers.CharField(max_length=40), required=False, help_text=_EVENTS_HELP
        )
        retryCount = serializers.IntegerField(required=False, help_text=_RETRY_HELP)

        class Meta:
            ref_name = "WebhookPatch"

    def _webhook(self, webhook_id: str) -> Webhook:
        webhook = selectors.webhook_get(key=self.api_key, webhook_id=webhook_id)
        self.require_session(webhook.session_id)
        return webhook

    @extend_schema(operation_id="gateway_webhooks_get", responses=WebhookOutputSerializer)
    def get(self, request: Request, webhook_id: str) -> Response:
        return Response(WebhookOutputSerializer(self._webhook(webhook_id)).data)

    @extend_schema(
        operation_id="gateway_webhooks_patch", request=InputSerializer, responses=WebhookOutputSerializer
    )
    def patch(self, request: Request, webhook_id: str) -> Response:
        webhook = self._webhook(webhook_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        changes = dict(data.validated_data)
        if "retryCount" in changes:
            changes["retry_count"] = changes.pop("retryCount")
        webhook = services.webhook_update(webhook=webhook, **changes)
        return Response(WebhookOutputSerializer(webhook).data)

    @extend_schema(
        operation_id="gateway_webhooks_delete",
        responses=inline_serializer("WebhookDeleted", {"deleted": serializers.BooleanField()}),
    )
    def delete(self, request: Request, webhook_id: str) -> Response:
        services.webhook_delete(webhook=self._webhook(webhook_id))
        return Response({"deleted": True})
