"""Labels of WhatsApp Business (issue 41): `GET/POST /api/labels`, `PUT/DELETE /api/labels/{id}`,
`POST /api/chats/labels`; the chat list filters by `labelId` (messaging.api.chat_filters).

Changes go through the session's engine and are emitted as `label_edit` and `label_association`, as the
phone's own are. Writes need an operator key; the list is read with any key.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsOperator
from core.transactions import NoRequestTransaction
from messaging.api.bases import MessageView, RecipientField, SessionInput
from messaging.api.common import MetaSerializer, PaginationQuerySerializer
from messaging.api.directory import SESSION_QUERY, DirectoryView
from messaging.models import Label
from messaging.models_labels import LABEL_COLORS
from messaging.services import labels as services

LABEL_ID = OpenApiParameter("label_id", OpenApiTypes.STR, OpenApiParameter.PATH)


def _name_field(**kwargs: Any) -> serializers.CharField:
    return serializers.CharField(max_length=100, trim_whitespace=True, **kwargs)


def _color_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(
        min_value=0, max_value=LABEL_COLORS - 1, help_text="An index of WhatsApp's label palette.", **kwargs
    )


@extend_schema_serializer(component_name="Label")
class LabelSerializer(serializers.Serializer):
    id = serializers.CharField(source="label_id", help_text="WhatsApp's id of the label.")
    name = serializers.CharField()
    color = serializers.IntegerField(help_text="An index of WhatsApp's label palette, 0 to 19.")


class LabelListSerializer(serializers.Serializer):
    data = LabelSerializer(many=True)
    meta = MetaSerializer()


@extend_schema_serializer(component_name="LabelCreateInput")
class LabelCreateInput(SessionInput):
    name = _name_field()
    color = _color_field()


@extend_schema_serializer(component_name="LabelUpdateInput")
class LabelUpdateInput(serializers.Serializer):
    name = _name_field(required=False)
    color = _color_field(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs:
            raise serializers.ValidationError("give `name`, `color` or both.")
        return attrs


class LabelsApi(NoRequestTransaction, DirectoryView):
    """The session's labels (`GET`, any key) and a new one (`POST`, operator keys)."""

    def get_permissions(self) -> list[Any]:
        return [IsOperator()] if self.request.method == "POST" else super().get_permissions()

    @extend_schema(
        parameters=[SESSION_QUERY, PaginationQuerySerializer],
        responses=LabelListSerializer,
        operation_id="labels_list",
    )
    def get(self, request: Request) -> Response:
        return self.page(request, services.label_list(session=self.query_session(request)), LabelSerializer)

    @extend_schema(request=LabelCreateInput, responses={201: LabelSerializer}, operation_id="labels_create")
    def post(self, request: Request) -> Response:
        data = LabelCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        session = self.session(data.validated_data["sessionId"])
        label = services.label_create(
            session=session, name=data.validated_data["name"], color=data.validated_data["color"]
        )
        return Response(LabelSerializer(label).data, status=status.HTTP_201_CREATED)


class LabelApi(NoRequestTransaction, DirectoryView):
    """One label: changed (`PUT`, its `name`, `color` or both) or deleted (`DELETE`, taken off every
    chat); `sessionId` in the query. 404 LABEL_NOT_FOUND for an id the session does not have."""

    permission_classes = [IsOperator]

    @extend_schema(
        parameters=[LABEL_ID, SESSION_QUERY],
        request=LabelUpdateInput,
        responses=LabelSerializer,
        operation_id="labels_update",
    )
    def put(self, request: Request, label_id: str) -> Response:
        data = LabelUpdateInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        label: Label = services.label_update(
            session=self.query_session(request),
            label_id=label_id,
            name=values.get("name"),
            color=values.get("color"),
        )
        return Response(LabelSerializer(label).data)

    @extend_schema_serializer(component_name="LabelDeleteOutput")
    class DeleteOutput(serializers.Serializer):
        success = serializers.BooleanField()
        id = serializers.CharField()

    @extend_schema(parameters=[LABEL_ID, SESSION_QUERY], responses=DeleteOutput, operation_id="labels_delete")
    def delete(self, request: Request, label_id: str) -> Response:
        services.label_delete(session=self.query_session(request), label_id=label_id)
        return Response({"success": True, "id": label_id})


class ChatLabelApi(MessageView):
    """Put a label on a chat (`action: add`) or take it off (`remove`); answers the chat's labels."""

    request_transaction = False

    @extend_schema_serializer(component_name="ChatLabelInput")
    class InputSerializer(SessionInput):
        chatId = RecipientField()
        labelId = serializers.CharField(max_length=32)
        action = serializers.ChoiceField(choices=("add", "remove"))

    @extend_schema_serializer(component_name="ChatLabelOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        chatId = serializers.CharField()
        labelIds = serializers.ListField(child=serializers.CharField(), help_text="The chat's labels now.")

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="chats_labels")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        ids = services.chat_label_set(
            session=session, chat=data["chatId"], label_id=data["labelId"], labeled=data["action"] == "add"
        )
        return Response({"success": True, "chatId": data["chatId"], "labelIds": ids})
