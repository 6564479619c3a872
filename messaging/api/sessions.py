"""Sessions under /api: list, create, read, delete, connect, QR code, pairing code, logout."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsAdmin, IsOperator, ReadOrAdmin
from core.errors import ValidationFailed
from core.negotiation import QueryFormatIsOurs
from core.transactions import NoRequestTransaction
from messaging.addressing import normalize_number
from messaging.api.bases import PagedListView, SessionKeyedView
from messaging.api.common import (
    SESSION_ID_PARAM,
    PaginationQuerySerializer,
    SessionListSerializer,
    SessionOutputSerializer,
    SuccessSerializer,
    envelope,
)
from messaging.channels import PROVIDERS, WHATSAPP
from messaging.channels.services import channel_session_create
from messaging.filters import SessionFilterSet
from messaging.qr import qr_data_uri, qr_png
from messaging.selectors import session_list
from messaging.services import sessions as services


class SessionListCreateApi(NoRequestTransaction, PagedListView):
    """GET: the sessions this key may see (paginated). POST: create one (admin keys; 5/min; plan cap).
    No request transaction: an official channel's credentials are checked with the Graph API before the
    service writes anything in its own transaction."""

    permission_classes = [ReadOrAdmin]
    rate_limits = {"POST": "5/m"}

    filterset_class = SessionFilterSet

    @extend_schema_serializer(component_name="SessionListCreateInput")
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        proxy = serializers.RegexField(
            r"^((socks5|http)://([^\s@/]+@)?[^\s@/:]+:\d{1,5}/?)?$",
            max_length=500,
            required=False,
            default="",
            allow_blank=True,
            help_text="WhatsApp driver: socks5:// or http:// proxy (user:password@ allowed) for this "
            "session's connection, overriding WHATSAPP_PROXY. Stored encrypted, never returned.",
        )
        provider = serializers.ChoiceField(
            choices=list(PROVIDERS),
            default=WHATSAPP,
            help_text="`whatsapp` (QR code or pairing code) or an official channel over the Graph API.",
        )
        credentials = serializers.DictField(
            required=False,
            allow_null=True,
            help_text="Official channels only. whatsapp_cloud: phoneNumberId, businessAccountId, "
            "accessToken, appSecret, verifyToken; messenger/instagram: pageId (or the Instagram account "
            "id), pageAccessToken, appSecret, verifyToken. Verified against the Graph API, stored "
            "encrypted, never returned.",
        )

    @extend_schema(
        parameters=[PaginationQuerySerializer], responses=SessionListSerializer, operation_id="sessions_list"
    )
    def get(self, request: Request) -> Response:
        sessions = self.filter_queryset(session_list(key=self.api_key))
        return Response(envelope(self.page_of(sessions), SessionOutputSerializer, key=self.api_key))

    @extend_schema(
        request=InputSerializer, responses={201: SessionOutputSerializer}, operation_id="sessions_create"
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        if values["provider"] == WHATSAPP:
            if values.get("credentials"):
                raise ValidationFailed("credentials: only official channels take credentials.")
            session = services.session_create(
                account=self.api_key.account, name=values["name"], proxy=values["proxy"]
            )
        else:
            if values["proxy"]:
                raise ValidationFailed(
                    "proxy: official channels connect over the Graph API, without a proxy."
                )
            session = channel_session_create(
                account=self.api_key.account,
                name=values["name"],
                provider=values["provider"],
                credentials=values.get("credentials"),
            )
        return Response(self.session_data(session), status=201)


class SessionDetailApi(NoRequestTransaction, SessionKeyedView):
    """GET: one session. DELETE: delete it with its history (admin keys)."""

    permission_classes = [ReadOrAdmin]

    @extend_schema(
        parameters=[SESSION_ID_PARAM], responses=SessionOutputSerializer, operation_id="sessions_get"
    )
    def get(self, request: Request, session_id: str) -> Response:
        return Response(self.session_data(self.session(session_id)))

    @extend_schema(parameters=[SESSION_ID_PARAM], responses=SuccessSerializer, operation_id="sessions_delete")
    def delete(self, request: Request, session_id: str) -> Response:
        session = self.session(session_id)
        services.session_delete(session=session)
        return Response({"success": True, "message": f"Session {session_id} deleted."})


class SessionInstanceKeyApi(SessionKeyedView):
    """Regenerate the session's instance key (admin keys): the reply is the session record with the new
    `instanceKey`, shown this once; the old key stops working at once."""

    permission_classes = [IsAdmin]

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=None,
        responses=SessionOutputSerializer,
        operation_id="sessions_instance_key_regenerate",
    )
    def post(self, request: Request, session_id: str) -> Response:
        session = services.session_instance_key_regenerate(session=self.session(session_id))
        return Response(self.session_data(session))


class ConnectSerializer(serializers.Serializer):
    sessionId = serializers.UUIDField()
    qrCode = serializers.CharField(allow_null=True)
    status = serializers.CharField()
    message = serializers.CharField()
    expiresAt = serializers.DateTimeField(allow_null=True)


def connect_body(outcome: services.ConnectOutcome) -> dict:
    return {
        "sessionId": str(outcome.session.pk),
        "qrCode": outcome.qr.code if outcome.qr else None,
        "status": outcome.session.status,
        "message": outcome.message,
        "expiresAt": outcome.qr.expires_at.isoformat() if outcome.qr else None,
    }


class SessionConnectApi(NoRequestTransaction, SessionKeyedView):
    """disconnected → qr with a fresh QR code; qr: the current code; connected: a no-op."""

    permission_classes = [IsOperator]

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=None,
        responses=ConnectSerializer,
        operation_id="sessions_connect",
    )
    def post(self, request: Request, session_id: str) -> Response:
        outcome = services.session_connect(session=self.session(session_id))
        return Response(connect_body(outcome))


class QrCodeSerializer(serializers.Serializer):
    """A QR code to scan: `format=raw` answers qrCode and expiresAt; `base64` adds the session and a PNG."""

    sessionId = serializers.UUIDField(required=False, help_text="format=base64 only.")
    status = serializers.CharField(required=False, help_text="format=base64 only.")
    qrCode = serializers.CharField(help_text="The code itself (render it as a QR code yourself with raw).")
    qrCodeImage = serializers.CharField(required=False, help_text="PNG as a data URI; format=base64 only.")
    expiresAt = serializers.DateTimeField()


QR_FORMATS = ("base64", "raw", "image")


class SessionQrCodeApi(NoRequestTransaction, SessionKeyedView):
    """The QR code to scan: `format=base64` (JSON with a PNG data URI), `raw` (JSON with the bare code)
    or `image` (image/png, the only reply that is not JSON). 400 SESSION_NOT_IN_QR_STATE unless the
    session is in state `qr`."""

    permission_classes = [IsOperator]
    content_negotiation_class = QueryFormatIsOurs

    @extend_schema(
        parameters=[
            SESSION_ID_PARAM,
            OpenApiParameter("format", OpenApiTypes.STR, enum=list(QR_FORMATS), default="base64"),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(
                QrCodeSerializer, description="format=base64 (every field) or raw (qrCode, expiresAt)"
            ),
            (200, "image/png"): OpenApiResponse(OpenApiTypes.BINARY, description="format=image"),
        },
        operation_id="sessions_qrcode",
    )
    def get(self, request: Request, session_id: str):
        # Absent means base64; present but empty is no format at all (the schema declares an enum).
        format_ = request.query_params.get("format", "base64").strip().lower()
        if format_ not in QR_FORMATS:
            raise ValidationFailed(f"format: {format_!r} is not one of base64, raw, image.")
        session = self.session(session_id)
        qr = services.session_qr(session=session)
        if format_ == "raw":
            return Response({"qrCode": qr.code, "expiresAt": qr.expires_at.isoformat()})
        if format_ == "image":
            response = HttpResponse(qr_png(qr.code), content_type="image/png")
            response["Cache-Control"] = "no-store"
            return response
        return Response(
            {
                "sessionId": str(session.pk),
                "status": session.status,
                "qrCode": qr.code,
                "qrCodeImage": qr_data_uri(qr.code),
                "expiresAt": qr.expires_at.isoformat(),
            }
        )


class PairingCodeSerializer(serializers.Serializer):
    sessionId = serializers.UUIDField()
    status = serializers.CharField()
    phoneNumber = serializers.CharField()
    pairingCode = serializers.CharField()
    expiresAt = serializers.DateTimeField()


def pairing_body(session, code) -> dict:
    return {
        "sessionId": str(session.pk),
        "status": session.status,
        "phoneNumber": code.phone,
        "pairingCode": code.code,
        "expiresAt": code.expires_at.isoformat(),
    }


class PhoneInputSerializer(serializers.Serializer):
    phoneNumber = serializers.CharField(help_text="Digits with country code, no '+'.")

    def validate_phoneNumber(self, value: str) -> str:
        return normalize_number(value, field="phoneNumber")


class SessionPairingCodeApi(NoRequestTransaction, SessionKeyedView):
    """Pair by phone number: a code to type on the phone (Linked devices → Link with phone number)."""

    permission_classes = [IsOperator]

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=PhoneInputSerializer,
        responses=PairingCodeSerializer,
        operation_id="sessions_pairing_code",
    )
    def post(self, request: Request, session_id: str) -> Response:
        data = PhoneInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        session = self.session(session_id)
        code = services.session_pairing_code(session=session, phone=data.validated_data["phoneNumber"])
        return Response(pairing_body(session, code))


class SessionLogoutApi(NoRequestTransaction, SessionKeyedView):
    """Unpair: the stored credentials are deleted; a new scan is needed to connect again."""

    permission_classes = [IsOperator]

    @extend_schema(
        parameters=[SESSION_ID_PARAM],
        request=None,
        responses=SuccessSerializer,
        operation_id="sessions_logout",
    )
    def post(self, request: Request, session_id: str) -> Response:
        services.session_logout(session=self.session(session_id))
        return Response({"success": True, "message": "Logged out; stored credentials removed."})
