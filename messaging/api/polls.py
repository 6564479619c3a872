"""Polls and edits under /api/messages: send a poll, read its results, edit a sent text."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsViewer
from messaging.api.bases import MessageView, RecipientField, SendView, SessionInput, SessionKeyedView
from messaging.api.mentions import MentionsInput, mentions_input
from messaging.api.messages import MAX_TEXT, QuotedSerializer, SentSerializer, quoted_input, sent_body
from messaging.services import edits, polls

MIN_OPTIONS, MAX_OPTIONS = 2, 12


class MessagePollApi(SendView):
    """Send a poll: a question and 2 to 12 unique options, of which a voter may choose up to
    `selectableCount`. Votes arrive as `poll_vote` events; results at /api/messages/poll-results."""

    @extend_schema_serializer(component_name="MessagePollInput")
    class InputSerializer(MentionsInput, SessionInput):
        to = RecipientField()
        name = serializers.CharField(max_length=255, help_text="The question.")
        options = serializers.ListField(
            child=serializers.CharField(max_length=100), min_length=MIN_OPTIONS, max_length=MAX_OPTIONS
        )
        selectableCount = serializers.IntegerField(
            min_value=1, required=False, default=1, help_text="How many options a voter may choose."
        )
        quoted = QuotedSerializer(required=False, allow_null=True)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            options = attrs["options"]
            if len(set(options)) != len(options):
                raise serializers.ValidationError({"options": "option names must be unique."})
            if attrs["selectableCount"] > len(options):
                raise serializers.ValidationError(
                    {"selectableCount": f"at most the number of options ({len(options)})."}
                )
            return attrs

    @extend_schema(request=InputSerializer, responses=SentSerializer, operation_id="messages_poll")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        message = polls.poll_send(
            session=session,
            to=data["to"],
            name=data["name"],
            options=data["options"],
            selectable_count=data["selectableCount"],
            quoted=quoted_input(data.get("quoted")),
            mentions=mentions_input(session, data["to"], data),
            savepoint=False,
        )
        return Response(sent_body(message))


@extend_schema_serializer(component_name="PollOptionResult")
class OptionResultSerializer(serializers.Serializer):
    name = serializers.CharField()
    count = serializers.IntegerField()
    voters = serializers.ListField(child=serializers.CharField(), help_text="JIDs of the voters.")


class PollResultsApi(SessionKeyedView):
    """A poll's options with their vote counts and voters (each voter's last vote counts)."""

    permission_classes = [IsViewer]

    class QuerySerializer(serializers.Serializer):
        sessionId = serializers.CharField(max_length=64)
        messageId = serializers.CharField(max_length=100)

    @extend_schema_serializer(component_name="PollResults")
    class OutputSerializer(serializers.Serializer):
        messageId = serializers.CharField(source="message_id")
        name = serializers.CharField()
        options = OptionResultSerializer(many=True)

    @extend_schema(
        parameters=[
            OpenApiParameter("sessionId", str, required=True),
            OpenApiParameter("messageId", str, required=True, description="The poll message's id."),
        ],
        responses=OutputSerializer,
        operation_id="messages_poll_results",
    )
    def get(self, request: Request) -> Response:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        session = self.session(query.validated_data["sessionId"])
        results = polls.poll_results(session=session, message_id=query.validated_data["messageId"])
        return Response(self.OutputSerializer(results).data)


class MessageEditApi(MessageView):
    """Edit the text of a text message this session sent, within 15 minutes of sending (403
    NOT_MESSAGE_AUTHOR for others' messages, 409 EDIT_WINDOW_EXPIRED after). Emits `message_edited`."""

    #: The engine is called (an engine process over the bus): no transaction held across it.
    request_transaction = False

    @extend_schema_serializer(component_name="MessageEditInput")
    class InputSerializer(SessionInput):
        to = RecipientField(help_text="The chat of the message.")
        messageId = serializers.CharField(max_length=100)
        text = serializers.CharField(max_length=MAX_TEXT, trim_whitespace=False)

    @extend_schema_serializer(component_name="MessageEditOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        messageId = serializers.CharField()
        text = serializers.CharField()
        edited = serializers.BooleanField()
        editedAt = serializers.DateTimeField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="messages_edit")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        message = edits.message_edit(
            session=session, chat=data["to"], message_id=data["messageId"], text=data["text"]
        )
        return Response(
            {
                "success": True,
                "messageId": message.message_id,
                "text": message.content.get("text", ""),
                "edited": True,
                "editedAt": message.edited_at.isoformat(),
            }
        )
