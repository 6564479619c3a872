"""Sandbox routes: `/api/sandbox/sessions/{id}/scan` and `/inbound` play the phone and WhatsApp.

They answer 404 for sessions on any other engine (the services check, never the views).
"""

from __future__ import annotations

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.transactions import NoRequestTransaction
from messaging.addressing import normalize_number
from messaging.api.bases import SandboxView
from messaging.api.common import SESSION_ID_PARAM, SessionOutputSerializer
from messaging.api.sandbox_inbound import EVENT_SERIALIZERS, inbound_clean
from messaging.api.sandbox_messages import MESSAGE_SERIALIZERS
from messaging.services import sessions as services

# The inbound body, one variant per event (and, for `message`, per `type`).
INBOUND_SCHEMA = PolymorphicProxySerializer(
    component_name="SandboxInboundInput",
    serializers={
        "message": PolymorphicProxySerializer(
            component_name="SandboxInboundMessage",
            serializers=MESSAGE_SERIALIZERS,
            resource_type_field_name="type",
        ),
        **EVENT_SERIALIZERS,
    },
    resource_type_field_name="event",
)


class SandboxScanApi(NoRequestTransaction, SandboxView):
    """The phone scans the current QR code (or types the pairing code): qr → connected."""

    @extend_schema_serializer(component_name="SandboxScanInput")
    class InputSerializer(serializers.Serializer):
        phone = serializers.CharField(required=False, default="", allow_blank=True)
        pairingCode = serializers.CharField(required=False, default="", allow_blank=True)

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=InputSerializer,
        responses=SessionOutputSerializer,
        operation_id="sandbox_sessions_scan",
    )
    def post(self, request: Request, session_id: str) -> Response:
        # No body parses as an empty form, which the serializer fills with its defaults; a JSON body
        # must be an object, even a falsy one (`""`, `0`, `[]`, `null`) being no "empty" body.
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        phone = data.validated_data["phone"]
        if phone:
            phone = normalize_number(phone, field="phone")
        session = services.sandbox_scan(
            session=self.session(session_id),
            phone=phone,
            pairing_code=data.validated_data["pairingCode"],
        )
        return Response(self.session_data(session))


class SandboxInboundApi(SandboxView):
    """Inject an inbound event into a connected sandbox session (stored and emitted as an event)."""

    @extend_schema_serializer(component_name="SandboxInboundOutput")
    class OutputSerializer(serializers.Serializer):
        event = serializers.CharField()
        data = serializers.DictField()

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=INBOUND_SCHEMA,
        responses={201: OutputSerializer},
        operation_id="sandbox_sessions_inbound",
    )
    def post(self, request: Request, session_id: str) -> Response:
        event, data = inbound_clean(request.data)
        session = self.session(session_id)
        reported = services.sandbox_inject(session=session, event=event, data=data)
        return Response({"event": event, "data": reported}, status=201)
