"""Official-channel routes under /api: templates, media by URL, mark as read, webhook fields."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsOperator, ReadOrAdmin
from messaging.api.common import SESSION_ID_PARAM
from messaging.api.messages import MessageView, RecipientField, SentSerializer, SessionInput, sent_body
from messaging.api.sessions import SessionKeyedView
from messaging.channels import sending, subscriptions, templates
from messaging.channels.engine import MEDIA_KINDS


@extend_schema_serializer(component_name="ChannelTemplate")
class TemplateSerializer(serializers.Serializer):
    name = serializers.CharField()
    language = serializers.CharField()
    status = serializers.CharField(help_text="As Meta reports it; only APPROVED templates are sent.")
    category = serializers.CharField()
    body = serializers.CharField(help_text="The BODY text with {{1}}… placeholders.")
    variables = serializers.IntegerField()
    syncedAt = serializers.DateTimeField(source="synced_at")


class TemplateListSerializer(serializers.Serializer):
    data = TemplateSerializer(many=True)


class SessionTemplatesApi(SessionKeyedView):
    """GET: the session's synced templates. POST …/templates/sync: fetch them again from the Graph API."""

    permission_classes = [ReadOrAdmin]

    @extend_schema(
        parameters=[SESSION_ID_PARAM], responses=TemplateListSerializer, operation_id="templates_list"
    )
    def get(self, request: Request, session_id: str) -> Response:
        session = self.session(session_id)
        return Response({"data": TemplateSerializer(session.templates.all(), many=True).data})


class SessionTemplatesSyncApi(SessionKeyedView):
    """WhatsApp Cloud sessions: replace the stored templates with the Graph API's (`message_templates`)."""

    permission_classes = [IsOperator]

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=None,
        responses=TemplateListSerializer,
        operation_id="templates_sync",
    )
    def post(self, request: Request, session_id: str) -> Response:
        synced = templates.templates_sync(session=self.session(session_id))
        return Response({"data": TemplateSerializer(synced, many=True).data})


class ChannelMediaApi(MessageView):
    """Official channels: send media by URL (Meta fetches it)."""

    @extend_schema_serializer(component_name="ChannelMediaInput")
    class InputSerializer(SessionInput):
        to = RecipientField(allow_group=False)
        type = serializers.ChoiceField(choices=list(MEDIA_KINDS))
        url = serializers.URLField(max_length=2000)
        caption = serializers.CharField(max_length=1024, required=False, default="", allow_blank=True)
        fileName = serializers.CharField(max_length=240, required=False, default="", allow_blank=True)

    @extend_schema(request=InputSerializer, responses=SentSerializer, operation_id="channels_media_send")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        message = sending.channel_send_media(
            session=session,
            to=data["to"],
            kind=data["type"],
            url=data["url"],
            caption=data["caption"],
            file_name=data["fileName"],
        )
        return Response(sent_body(message))


class ChannelReadApi(MessageView):
    """Official channels: mark a received message read, with the typing indicator (clears in ~25 s)."""

    @extend_schema_serializer(component_name="ChannelReadInput")
    class InputSerializer(SessionInput):
        to = RecipientField(allow_group=False)
        messageId = serializers.CharField(max_length=100)
        typing = serializers.BooleanField(required=False, default=True)

    @extend_schema_serializer(component_name="ChannelReadOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        messageId = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="channels_read")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        sending.channel_mark_read(
            session=session, chat=data["to"], message_id=data["messageId"], typing=data["typing"]
        )
        return Response({"success": True, "messageId": data["messageId"]})


@extend_schema_serializer(component_name="WebhookFields")
class WebhookFieldsSerializer(serializers.Serializer):
    sessionId = serializers.UUIDField()
    provider = serializers.CharField()
    required = serializers.ListField(
        child=serializers.CharField(), help_text="Fields Ponte turns into events."
    )
    subscribed = serializers.ListField(child=serializers.CharField(), help_text="Fields the page sends now.")
    missing = serializers.ListField(child=serializers.CharField(), help_text="Required and not subscribed.")
    added = serializers.ListField(child=serializers.CharField(), help_text="POST: fields just subscribed.")


def _fields_body(session, fields: subscriptions.WebhookFields) -> dict:
    return {
        "sessionId": str(session.pk),
        "provider": session.provider,
        "required": list(fields.required),
        "subscribed": list(fields.subscribed),
        "missing": list(fields.missing),
        "added": list(fields.added),
    }


class SessionWebhookFieldsApi(SessionKeyedView):
    """Messenger and Instagram: GET the page's subscribed webhook fields; POST subscribes the missing ones."""

    permission_classes = [IsOperator]

    @extend_schema(
        parameters=[SESSION_ID_PARAM], responses=WebhookFieldsSerializer, operation_id="webhook_fields_get"
    )
    def get(self, request: Request, session_id: str) -> Response:
        session = self.session(session_id)
        return Response(_fields_body(session, subscriptions.webhook_fields_get(session=session)))

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=None,
        responses=WebhookFieldsSerializer,
        operation_id="webhook_fields_subscribe",
    )
    def post(self, request: Request, session_id: str) -> Response:
        session = self.session(session_id)
        return Response(_fields_body(session, subscriptions.webhook_fields_subscribe(session=session)))
