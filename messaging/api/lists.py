"""List messages and forwards under /api/messages."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from messaging.api.bases import RecipientField, SendView, SessionInput
from messaging.api.messages import MAX_TEXT, SentSerializer, sent_body
from messaging.services.forward import message_forward
from messaging.services.lists import MAX_ROWS, MAX_SECTIONS, list_problem, message_send_list
from messaging.values import ListMessage, ListRow, ListSection

# WhatsApp's limits on a list's texts (the Cloud API refuses longer ones).
MAX_BUTTON_TEXT, MAX_ROW_TITLE, MAX_ROW_DESCRIPTION, MAX_HEADER = 20, 24, 72, 60


@extend_schema_serializer(component_name="ListRow")
class ListRowSerializer(serializers.Serializer):
    rowId = serializers.CharField(max_length=200, help_text="Comes back in the choice's `listResponse`.")
    title = serializers.CharField(max_length=MAX_ROW_TITLE)
    description = serializers.CharField(
        max_length=MAX_ROW_DESCRIPTION, required=False, default="", allow_blank=True
    )


@extend_schema_serializer(component_name="ListSection")
class ListSectionSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=MAX_ROW_TITLE)
    rows = ListRowSerializer(many=True, min_length=1, max_length=MAX_ROWS)


class MessageSendListApi(SendView):
    """Send a list message: a text and a button that opens 1 to 10 sections of rows (at most 10 rows in
    all, row ids unique). The customer's choice arrives as a `message` of type `list_response`."""

    @extend_schema_serializer(component_name="MessageListInput")
    class InputSerializer(SessionInput):
        to = RecipientField()
        text = serializers.CharField(max_length=MAX_TEXT)
        buttonText = serializers.CharField(max_length=MAX_BUTTON_TEXT, help_text="The button that opens it.")
        title = serializers.CharField(max_length=MAX_HEADER, required=False, default="", allow_blank=True)
        footer = serializers.CharField(max_length=MAX_HEADER, required=False, default="", allow_blank=True)
        sections = ListSectionSerializer(many=True, min_length=1, max_length=MAX_SECTIONS)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            message = ListMessage(
                text=attrs["text"],
                button_text=attrs["buttonText"],
                title=attrs["title"],
                footer=attrs["footer"],
                sections=tuple(
                    ListSection(
                        title=s["title"],
                        rows=tuple(ListRow(r["rowId"], r["title"], r["description"]) for r in s["rows"]),
                    )
                    for s in attrs["sections"]
                ),
            )
            problem = list_problem(message)
            if problem is not None:
                raise serializers.ValidationError({problem[0]: problem[1]})
            return {**attrs, "message": message}

    @extend_schema(request=InputSerializer, responses=SentSerializer, operation_id="messages_list_send")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        message = message_send_list(session=session, to=data["to"], message=data["message"], savepoint=False)
        return Response(sent_body(message))


class MessageForwardApi(SendView):
    """Forward a message of the history (text, media, location, contacts, poll) to `to`; the copy is
    marked `forwarded` in the history and its `message` event."""

    @extend_schema_serializer(component_name="MessageForwardInput")
    class InputSerializer(SessionInput):
        to = RecipientField()
        chat = RecipientField(help_text="The chat the message is in.")
        messageId = serializers.CharField(max_length=100)

    @extend_schema(request=InputSerializer, responses=SentSerializer, operation_id="messages_forward")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        message = message_forward(
            session=session, to=data["to"], chat=data["chat"], message_id=data["messageId"], savepoint=False
        )
        return Response(sent_body(message))
