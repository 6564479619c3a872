"""The Chatwoot integration's interfaces (thin: they call integrations.chatwoot services).

* REST (API key, messaging error shape): `PUT|GET|DELETE /api/sessions/{id}/integrations/chatwoot`,
  `POST /api/sessions/{id}/integrations/chatwoot/webhook-token` (a new receiving URL);
* instance interface (the instance key is the credential; `{"status": 200, "data": …}`):
  `PUT|GET /instances/<instance_key>/chatwoot`, `POST /instances/<instance_key>/chatwoot/webhook-token`,
  `POST /instances/<instance_key>/chatwoot/templates/sync`;
* receiving URL: `POST /integrations/chatwoot/<token>`, where Chatwoot's webhooks arrive.

The receiving URL is a write credential (config.py): on the REST interface only admin keys see it. The
instance key has no role: it is handed out only to admin keys (session creation, regeneration) and
already lets its holder rewrite the whole configuration, so its replies show the URL as admins' do.
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

from accounts.models import ApiKey
from accounts.permissions import IsAdmin, IsOperator, ReadOrAdmin, role_at_least
from core.api_fields import StrictBooleanField
from core.errors import NotAuthenticated, NotFound, ValidationFailed
from core.signed_json import signed_json_load
from core.transactions import NoRequestTransaction
from integrations.chatwoot import config, inbound, signature, templates
from integrations.chatwoot.models import ChatwootIntegration
from messaging.api.bases import SessionKeyedView
from messaging.api.common import SuccessSerializer
from webhooks.instance.bases import InstanceAPIView
from webhooks.instance.guard import instance_session_for

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
    signedWebhooks = serializers.BooleanField(
        help_text="Chatwoot gave a signing secret: webhooks must be signed, with a fresh timestamp."
    )
    webhookUrl = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="Admins only: Ponte's receiving URL, in full only in the reply that issues it "
        "(configuration, regeneration), null otherwise. A write credential: keep it secret.",
    )
    webhookTokenPrefix = serializers.CharField(
        required=False, help_text="Admins only: the first characters of the receiving URL's token."
    )


def _admin(request: Request) -> bool:
    return role_at_least(request.auth if isinstance(request.auth, ApiKey) else None, ApiKey.Role.ADMIN)


def _values(data: Any) -> dict[str, Any]:
    if isinstance(data, dict):
        unknown = sorted(set(data) - set(ChatwootConfigSerializer().fields))
        if unknown:
            raise ValidationFailed(f"unknown field(s) {', '.join(unknown)}")
    serializer = ChatwootConfigSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class ChatwootConfigApi(NoRequestTransaction, SessionKeyedView):
    """The session's Chatwoot integration (docs/integrations.md). PUT searches the inbox identifier
    across every account the token can see and points the inbox's webhook at `webhookUrl`; the access
    token is never returned."""

    permission_classes = [ReadOrAdmin]

    @extend_schema(operation_id="chatwoot_config_get", responses=ChatwootConfigOutputSerializer)
    def get(self, request: Request, session_id: str) -> Response:
        integration = config.integration_of(self.session(session_id))
        return Response(config.integration_data(integration, credentials=_admin(request)))

    @extend_schema(
        operation_id="chatwoot_config_put",
        request=ChatwootConfigSerializer,
        responses=ChatwootConfigOutputSerializer,
    )
    def put(self, request: Request, session_id: str) -> Response:
        session = self.session(session_id)
        integration = config.integration_configure(session=session, values=_values(request.data))
        return Response(config.integration_data(integration, credentials=True))

    @extend_schema(operation_id="chatwoot_config_delete", responses=SuccessSerializer)
    def delete(self, request: Request, session_id: str) -> Response:
        config.integration_delete(session=self.session(session_id))
        return Response(
            {"success": True, "message": f"Chatwoot integration of session {session_id} deleted."}
        )


_INSTANCE_REPLY = inline_serializer(
    "InstanceChatwootReply", {"status": serializers.IntegerField(), "data": ChatwootConfigOutputSerializer()}
)


class InstanceChatwootApi(NoRequestTransaction, InstanceAPIView):
    @extend_schema(operation_id="instance_chatwoot_get", responses=_INSTANCE_REPLY)
    def get(self, request: Request, instance_key: str) -> Response:
        session = instance_session_for(request, instance_key)
        integration = config.integration_of(session)
        return Response({"status": 200, "data": config.integration_data(integration, credentials=True)})

    @extend_schema(
        operation_id="instance_chatwoot_put", request=ChatwootConfigSerializer, responses=_INSTANCE_REPLY
    )
    def put(self, request: Request, instance_key: str) -> Response:
        session = instance_session_for(request, instance_key)
        integration = config.integration_configure(session=session, values=_values(request.data))
        return Response({"status": 200, "data": config.integration_data(integration, credentials=True)})


class ChatwootWebhookTokenApi(NoRequestTransaction, SessionKeyedView):
    """A new receiving URL (admin keys), shown in full in this reply only; the old one answers 404 from
    now on, and the inbox's webhook is pointed at the new one (where Chatwoot lets Ponte)."""

    permission_classes = [IsAdmin]

    @extend_schema(
        operation_id="chatwoot_webhook_token_regenerate",
        request=None,
        responses=ChatwootConfigOutputSerializer,
    )
    def post(self, request: Request, session_id: str) -> Response:
        integration = config.webhook_token_regenerate(session=self.session(session_id))
        return Response(config.integration_data(integration, credentials=True))


class InstanceChatwootWebhookTokenApi(NoRequestTransaction, InstanceAPIView):
    @extend_schema(
        operation_id="instance_chatwoot_webhook_token_regenerate", request=None, responses=_INSTANCE_REPLY
    )
    def post(self, request: Request, instance_key: str) -> Response:
        session = instance_session_for(request, instance_key)
        integration = config.webhook_token_regenerate(session=session)
        return Response({"status": 200, "data": config.integration_data(integration, credentials=True)})


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


class ChatwootTemplatesSyncApi(NoRequestTransaction, SessionKeyedView):
    """Publish the session's approved templates as Chatwoot canned responses `tpl_<name>` (idempotent:
    updated, never duplicated); the same service as the instance interface's sync."""

    permission_classes = [IsOperator]

    @extend_schema(operation_id="chatwoot_templates_sync", request=None, responses=_SYNC_DATA)
    def post(self, request: Request, session_id: str) -> Response:
        return Response(templates.templates_publish(session=self.session(session_id)))


class InstanceChatwootTemplatesSyncApi(NoRequestTransaction, InstanceAPIView):
    @extend_schema(operation_id="instance_chatwoot_templates_sync", request=None, responses=_SYNC_REPLY)
    def post(self, request: Request, instance_key: str) -> Response:
        session = instance_session_for(request, instance_key)
        return Response({"status": 200, "data": templates.templates_publish(session=session)})


class ChatwootWebhookApi(APIView):
    """Chatwoot's webhooks: the token in the path names (and authorises) the integration; when Chatwoot
    gave the integration a signing secret, the request must also be signed with it, at a timestamp
    within five minutes. The body is what the platform sent: cleaned, not refused, so an odd character
    never costs an agent's message."""

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
        integration = config.integration_by_token(token)
        if integration is None:
            raise NotFound("No Chatwoot integration at this address.")
        raw = request.body  # the raw bytes are what was signed
        if integration.webhook_secret:
            _signature_check(integration, request, raw)
        try:
            payload = signed_json_load(raw, source=f"Chatwoot webhook of integration {integration.pk}")
        except ValueError:
            raise ValidationFailed("The body is not JSON.") from None
        if not isinstance(payload, dict):
            payload = {}
        return Response({"result": inbound.webhook_receive(integration, payload)})


def _signature_check(integration: ChatwootIntegration, request: Request, raw: bytes) -> None:
    timestamp = request.headers.get(signature.TIMESTAMP_HEADER)
    given = request.headers.get(signature.SIGNATURE_HEADER)
    if not given:
        problem = "unsigned"
    elif not signature.signature_valid(integration.webhook_secret, timestamp, raw, given):
        problem = "badly signed"
    elif not signature.timestamp_fresh(timestamp):
        problem = f"timestamp {str(timestamp)[:20]!r} more than {signature.MAX_SKEW_SECONDS} s from now"
    else:
        return
    logger.warning("Chatwoot webhook for integration %s refused: %s", integration.pk, problem)
    raise NotAuthenticated(
        "The webhook is not signed with this integration's Chatwoot secret at a current timestamp."
    )
