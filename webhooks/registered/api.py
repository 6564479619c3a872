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
from accounts.models import ApiKey
from accounts.permissions import ReadOrOperate
from webhooks.catalogue import SUBSCRIBABLE
from webhooks.models import Webhook
from webhooks.registered import selectors, services
from webhooks.registered.filters import WebhookFilterSet
from webhooks.registered.serializers import (
    FILTER_HELP,
    ORDERING_HELP,
    RETRY_SCHEDULE_HELP,
    BodyFilterField,
    RetryScheduleField,
    WebhookOutputSerializer,
)

_EVENTS_HELP = (
    f"Event names: {', '.join(SUBSCRIBABLE)}; aliases messages, connection, session.connected accepted."
)
_RETRY_HELP = (
    f"Attempts per event, {Webhook.MIN_RETRY_COUNT} to {Webhook.MAX_RETRY_COUNT}, "
    f"default {Webhook.DEFAULT_RETRY_COUNT}, on the seed's retrySchedule (other schedules set their own)."
)

_RATE_HELP = (
    f"Deliveries per second to this webhook, {Webhook.MIN_RATE_LIMIT} to {Webhook.MAX_RATE_LIMIT}, across"
    " every worker; null (the default) for no limit. Deliveries over it wait, they do not fail."
)


_HEADERS_HELP = (
    "Custom request headers sent with every delivery, {name: value}: at most 10, names HTTP tokens, values "
    "at most 1000 printable ASCII characters; Host, Content-Length, Content-Type, Transfer-Encoding, "
    "Connection, webhook-*, x-webhook-* and x-ponte-* are refused. Values are returned to admin keys only."
)


def record(view: KeyedAPIView, webhook: Webhook) -> dict:
    """The webhook record as this key may see it: header values for admin keys only."""
    context = {"header_values": view.api_key.role == ApiKey.Role.ADMIN}
    return WebhookOutputSerializer(webhook, context=context).data


class WebhookListCreateApi(KeyedListAPIView):
    permission_classes = [ReadOrOperate]
    filterset_class = WebhookFilterSet

    class InputSerializer(serializers.Serializer):
        sessionId = serializers.CharField()
        url = serializers.CharField(max_length=2000)
        secret = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")
        events = serializers.ListField(child=serializers.CharField(max_length=40), help_text=_EVENTS_HELP)
        retryCount = serializers.IntegerField(required=False, allow_null=True, help_text=_RETRY_HELP)
        retrySchedule = RetryScheduleField(required=False, allow_null=True, help_text=RETRY_SCHEDULE_HELP)
        filter = BodyFilterField(required=False, allow_null=True, help_text=FILTER_HELP)
        ordering = serializers.ChoiceField(
            choices=Webhook.Ordering.choices, required=False, help_text=ORDERING_HELP
        )
        rateLimit = serializers.IntegerField(required=False, allow_null=True, help_text=_RATE_HELP)
        headers = serializers.DictField(
            child=serializers.CharField(allow_blank=True, trim_whitespace=False),
            required=False,
            allow_null=True,
            help_text=_HEADERS_HELP,
        )

        class Meta:
            ref_name = "WebhookCreate"

    @extend_schema(
        operation_id="gateway_webhooks_list",
        responses=inline_serializer("WebhookList", {"data": WebhookOutputSerializer(many=True)}),
    )
    def get(self, request: Request) -> Response:
        webhooks = self.filter_queryset(selectors.webhook_list(key=self.api_key))
        return Response({"data": [record(self, webhook) for webhook in webhooks]})

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
            rate_limit=values.get("rateLimit"),
            headers=values.get("headers"),
            retry_schedule=values.get("retrySchedule"),
            body_filter=values.get("filter"),
            ordering=values.get("ordering"),
        )
        return Response(record(self, webhook))


class WebhookDetailApi(KeyedAPIView):
    permission_classes = [ReadOrOperate]

    class InputSerializer(serializers.Serializer):
        url = serializers.CharField(required=False, max_length=2000)
        secret = serializers.CharField(required=False, allow_blank=True, max_length=500)
        events = serializers.ListField(
            child=serializers.CharField(max_length=40), required=False, help_text=_EVENTS_HELP
        )
        retryCount = serializers.IntegerField(required=False, help_text=_RETRY_HELP)
        retrySchedule = RetryScheduleField(required=False, allow_null=True, help_text=RETRY_SCHEDULE_HELP)
        filter = BodyFilterField(required=False, allow_null=True, help_text=FILTER_HELP)
        ordering = serializers.ChoiceField(
            choices=Webhook.Ordering.choices, required=False, help_text=ORDERING_HELP
        )
        rateLimit = serializers.IntegerField(required=False, allow_null=True, help_text=_RATE_HELP)
        headers = serializers.DictField(
            child=serializers.CharField(allow_blank=True, trim_whitespace=False),
            required=False,
            allow_null=True,
            help_text=_HEADERS_HELP + " Replaces all headers; {} or null removes them.",
        )
        status = serializers.ChoiceField(
            choices=Webhook.Status.choices,
            required=False,
            help_text='"active" enables a webhook that was disabled (after failing for days, or by hand).',
        )

        class Meta:
            ref_name = "WebhookPatch"

    def _webhook(self, webhook_id: str) -> Webhook:
        webhook = selectors.webhook_get(key=self.api_key, webhook_id=webhook_id)
        self.require_session(webhook.session_id)
        return webhook

    @extend_schema(operation_id="gateway_webhooks_get", responses=WebhookOutputSerializer)
    def get(self, request: Request, webhook_id: str) -> Response:
        return Response(record(self, self._webhook(webhook_id)))

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
        if "rateLimit" in changes:
            changes["rate_limit"] = changes.pop("rateLimit")
        if "retrySchedule" in changes:
            changes["retry_schedule"] = changes.pop("retrySchedule")
        if "filter" in changes:
            changes["body_filter"] = changes.pop("filter")
        webhook = services.webhook_update(webhook=webhook, **changes)
        return Response(record(self, webhook))

    @extend_schema(
        operation_id="gateway_webhooks_delete",
        responses=inline_serializer("WebhookDeleted", {"deleted": serializers.BooleanField()}),
    )
    def delete(self, request: Request, webhook_id: str) -> Response:
        services.webhook_delete(webhook=self._webhook(webhook_id))
        return Response({"deleted": True})
