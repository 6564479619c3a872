"""Official-channel routes under /api: templates, media by URL, mark as read, webhook fields."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsOperator, ReadOrAdmin
from core.transactions import NoRequestTransaction
from messaging.api.bases import SessionKeyedView
from messaging.api.common import SESSION_ID_PARAM
from messaging.channels import subscriptions, templates


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


class SessionTemplatesSyncApi(NoRequestTransaction, SessionKeyedView):
    """WhatsApp Cloud sessions: replace the stored templates with the Graph API's (`message_templates`),
    fetched before the service's own transaction."""

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


class SessionWebhookFieldsApi(NoRequestTransaction, SessionKeyedView):
    """Messenger and Instagram: GET the page's subscribed webhook fields; POST subscribes the missing ones
    (Graph API calls only: nothing is written, so no request transaction)."""

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
