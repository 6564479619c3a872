"""Gateway routes (`/gateway/`, errors as `{"error": "<text>"}`): the session list and pairing by QR
code or by phone code."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api_bases import KeyedListAPIView
from accounts.permissions import IsOperator, IsViewer
from core.transactions import NoRequestTransaction
from messaging.api.bases import SessionKeyedView
from messaging.api.common import SESSION_ID_PARAM, SessionOutputSerializer
from messaging.api.sessions import PairingCodeSerializer, PhoneInputSerializer, pairing_body
from messaging.filters import SessionFilterSet
from messaging.qr import qr_data_uri
from messaging.selectors import session_list
from messaging.services import sessions as services


class GatewaySessionListApi(KeyedListAPIView):
    """The account's sessions this key may see, optionally filtered by `status`."""

    permission_classes = [IsViewer]

    filterset_class = SessionFilterSet

    @extend_schema_serializer(component_name="GatewaySessionListOutput")
    class OutputSerializer(serializers.Serializer):
        sessions = SessionOutputSerializer(many=True)

    @extend_schema(responses=OutputSerializer, operation_id="gateway_sessions_list")
    def get(self, request: Request) -> Response:
        sessions = self.filter_queryset(session_list(key=self.api_key))
        data = SessionOutputSerializer(sessions, many=True, context={"key": self.api_key}).data
        return Response({"sessions": data})


class GatewayPairQrApi(NoRequestTransaction, SessionKeyedView):
    """Pair by QR code: connects the session when needed and returns the code to scan."""

    permission_classes = [IsOperator]

    @extend_schema_serializer(component_name="GatewayPairQrOutput")
    class OutputSerializer(serializers.Serializer):
        sessionId = serializers.UUIDField()
        status = serializers.CharField()
        qrCode = serializers.CharField()
        qrCodeImage = serializers.CharField()
        expiresAt = serializers.DateTimeField()

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=None,
        responses=OutputSerializer,
        operation_id="gateway_sessions_pair_qr",
    )
    def post(self, request: Request, session_id: str) -> Response:
        outcome = services.session_pair(session=self.session(session_id))
        qr = outcome.qr
        return Response(
            {
                "sessionId": str(outcome.session.pk),
                "status": outcome.session.status,
                "qrCode": qr.code,
                "qrCodeImage": qr_data_uri(qr.code),
                "expiresAt": qr.expires_at.isoformat(),
            }
        )


class GatewayPairPhoneApi(NoRequestTransaction, SessionKeyedView):
    """Pair by phone number: returns a code to type on that phone."""

    permission_classes = [IsOperator]

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=PhoneInputSerializer,
        responses=PairingCodeSerializer,
        operation_id="gateway_sessions_pair_phone",
    )
    def post(self, request: Request, session_id: str) -> Response:
        data = PhoneInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        session = self.session(session_id)
        code = services.session_pairing_code(session=session, phone=data.validated_data["phoneNumber"])
        session.refresh_from_db()
        return Response(pairing_body(session, code))
