"""`GET /gateway/event-types`: the event catalogue as data, for any key (webhooks.event_types)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api_bases import KeyedAPIView
from accounts.permissions import IsViewer
from webhooks.event_types import JSON_SCHEMA_DIALECT, event_types


class EventTypeSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The canonical name, as deliveries carry it in `event`.")
    description = serializers.CharField()
    aliases = serializers.ListField(
        child=serializers.CharField(), help_text="Other names accepted in a webhook's `events`."
    )
    schema = serializers.DictField(
        help_text=f"JSON Schema ({JSON_SCHEMA_DIALECT}) of the body POSTed; new fields may be added."
    )
    example = serializers.DictField(help_text="An example body.")


class EventTypeListApi(KeyedAPIView):
    """Every event a registered webhook can receive, with the JSON Schema of its body and an example
    (the catalogue's order; `webhook.test`, sent only on request, last). The OpenAPI document lists the
    same bodies in its `webhooks` section."""

    permission_classes = [IsViewer]

    @extend_schema(operation_id="gateway_event_types_list", responses=EventTypeSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(list(event_types()))
