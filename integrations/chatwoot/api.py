"""The Chatwoot integration's interfaces (thin: they call integrations.chatwoot services).

* REST (API key, messaging error shape): `PUT|GET|DELETE /api/sessions/{id}/integrations/chatwoot`;
* instance interface (the instance key is the credential; `{"status": 200, "data": …}`):
  `PUT|GET /instances/<instance_key>/chatwoot`, `POST /instances/<instance_key>/chatwoot/templates/sync`;
* receiving URL: `POST /integrations/chatwoot/<token>`, where Chatwoot's webhooks arrive.
"""

from __future__ import annotations

import logging
from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsOperator, ReadOrAdmin
from config.errors import NotAuthenticated, NotFound, ValidationFailed
from integrations.chatwoot import config, inbound, signature, templates
from integrations.chatwoot.models import ChatwootIntegration
from messaging.api.common import SuccessSerializer
from messaging.api.sessions import SessionKeyedView
from webhooks.instance_api import InstanceAPIView, StrictBooleanField
from webhooks.instance_guard import instance_session_for

logger = logging.getLogger(__name__)


class ChatwootConfigSerializer(serializers.Serializer):
    baseUrl = serializers.CharField(max_length=500, required=False, help_text="e.g. https://chat.example.com")
    accessToken = serializers.CharField(
        max_length=500,
        required=False,
        write_only=True,
        help_text="An admin user's access token; never returned.",
    )
    inboxIdentifier = serializers.CharField(
        max_length=200, required=False, help_text="The API inbox's identifier."
    )
    signMessages = StrictBooleanField(
        required=False, help_text="Prefix agent messages with the agent's name."
    )
    reopenConversations = StrictBooleanField(
        required=False, help_text="Reopen a resolved conversation instead of starting a new one."
    )
    importContacts = StrictBooleanField(required=False, help_text="Create unknown contacts in Chatwoot.")
    enabled = StrictBooleanField(required=False, help_text="Pause (false) or resume the mirror.")


class ChatwootConfigOutputSerializer(serializers.Serializer):
    baseUrl = serializers.CharField()
    inboxIdentifier = serializers.CharField()
    accountId = serializers.IntegerField(allow_null=True)
    inboxId = serializers.IntegerField(allow_null=True)
    signMessages = serializers.BooleanField()
    reopenConversations = serializers.BooleanField()
    importContacts = serializers.BooleanField()
    enabled = serializers.BooleanField()
    status = serializers.CharField(help_text="ok once the inbox was found; else why not.")
    statusReason = serializers.CharField()
    webhookUrl = serializers.CharField(help_text="Ponte's receiving URL for this integration.")


def _values(data: Any) -> dict[str, Any]:
    if isinstance(data, dict):
        unknown = sorted(set(data) - set(ChatwootConfigSerializer().fields))
        if unknown:
            raise ValidationFailed(f"unknown field(s) {', '.join(unknown)}")
    serializer = ChatwootConfigSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class ChatwootConfigApi(SessionKeyedView):
    """The session's Chatwoot integration (docs/integrations.md). PUT searches the inbox identifier
    across every account the token can see and points the inbox's webhook at `webhookUrl`; the access
    token is never returned."""

    permission_classes = [ReadOrAdmin]

    @extend_schema(operation_id="chatwoot_config_get", responses=ChatwootConfigOutputSerializer)
    def get(self, request: Request, session_id: str) -> Response:
        return Response(config.integration_data(config.integration_of(self.session(session_id))))

    @extend_schema(
        operation_id="chatwoot_config_put",
        request=ChatwootConfigSerializer,
        responses=ChatwootConfigOutputSerializer,
    )
    def put(self, request: Request, session_id: str) -> Response:
        session = self.session(session_id)
        integration = config.integration_configure(session=session, values=_values(request.data))
        return Response(config.integration_data(integration))

    @extend_schema(operation_id="chatwoot_config_delete", responses=SuccessSerializer)
    def delete(self, request: Request, session_id: str) -> Response:
        config.integration_delete(session=self.session(session_id))
        return Response(
            {"success": True, "message": f"Chatwoot integration of session {session_id} deleted."}
        )


_INSTANCE_REPLY = inline_serializer(
    "InstanceChatwootReply", {"status": serializers.IntegerField(), "data": ChatwootConfigOutputSerializer()}
)


class InstanceChatwootApi(InstanceAPIView):
    @extend_schema(operation_id="instance_chatwoot_get", responses=_INSTANCE_REPLY)
    def get(self, request: Request, instance_key: str) -> Response:
        session = instance_session_for(request, instance_key)
        return Response({"status": 200, "data": config.integration_data(config.integration_of(session))})

    @extend_schema(
        operation_id="instance_chatwoot_put", request=ChatwootConfigSerializer, responses=_INSTANCE_REPLY
    )
    def put(self, request: Request, instance_key: str) -> Response:
        session = instance_session_for(request, instance_key)
        integration = config.integration_configure(session=session, values=_values(request.data))
        return Response({"status": 200, "data": config.integration_data(integration)})


_SYNC_REPLY = inline_serializer(
    "InstanceChatwootTemplatesSync",
    {
        "status": serializers.IntegerField(),
        "data": inline_serializer(
            "InstanceChatwootTemplatesSyncData",
            {
                "created": serializers.ListField(child=serializers.CharField()),
                "updated": serializers.ListField(child=serializers.CharField()),
                "unchanged": serializers.ListField(child=serializers.CharField()),
            },
        ),
    },
)


_SYNC_DATA = inline_serializer(
    "ChatwootTemplatesSync",
    {
        "created": serializers.ListField(child=serializers.CharField()),
        "updated": serializers.ListField(child=serializers.CharField()),
        "unchanged": serializers.ListField(child=serializers.CharField()),
    },
)


class ChatwootTemplatesSyncApi(SessionKeyedView):
    """Publish the session's approved templates as Chatwoot canned responses `tpl_<name>` (idempotent:
    updated, never duplicated); the same service as the instance interface's sync."""

    permission_classes = [IsOperator]

    @extend_schema(operation_id="chatwoot_templates_sync", request=None, responses=_SYNC_DATA)
    def post(self, request: Request, session_id: str) -> Response:
        return Response(templates.templates_publish(session=self.session(session_id)))


class InstanceChatwootTemplatesSyncApi(InstanceAPIView):
    @extend_schema(operation_id="instance_chatwoot_templates_sync", request=None, responses=_SYNC_REPLY)
    def post(self, request: Request, instance_key: str) -> Response:
        session = instance_session_for(request, instance_key)
        return Response({"status": 200, "data": templates.templates_publish(session=session)})


class ChatwootWebhookApi(APIView):
    """Chatwoot's webhooks: the token in the path names (and authorises) the integration; when Chatwoot
    gave the integration a signing secret, the request must also be signed with it (signature.py)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="chatwoot_webhook_receive",
        request=None,
        responses=inline_serializer(
            "ChatwootWebhookReceived",
            {"result": serializers.CharField(help_text="queued, duplicate or ignored")},
        ),
    )
    def post(self, request: Request, token: str) -> Response:
        integration = ChatwootIntegration.objects.filter(webhook_token=token).first()
        if integration is None:
            raise NotFound("No Chatwoot integration at this address.")
        if integration.webhook_secret and not signature.signature_valid(
            integration.webhook_secret,
            request.headers.get(signature.TIMESTAMP_HEADER),
            request.body,  # read before request.data: the raw bytes are what was signed
            request.headers.get(signature.SIGNATURE_HEADER),
        ):
            logger.warning(
                "Chatwoot webhook for integration %s refused: %s",
                integration.pk,
                "badly signed" if request.headers.get(signature.SIGNATURE_HEADER) else "unsigned",
            )
            raise NotAuthenticated("The webhook is not signed with this integration's Chatwoot secret.")
        payload = request.data if isinstance(request.data, dict) else {}
        return Response({"result": inbound.webhook_receive(integration, payload)})
