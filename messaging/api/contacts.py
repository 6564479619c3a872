"""Contacts and the own profile under /api/contacts."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.permissions import IsOperator
from core.errors import ValidationFailed
from messaging.addressing import normalize_jid, normalize_number
from messaging.api.bases import EngineCallView, MessageView, SessionInput
from messaging.api.common import SuccessSerializer
from messaging.services import profile as services

MAX_CHECK_NUMBERS = 50


class ContactCheckApi(EngineCallView):
    """Which numbers are on WhatsApp: `numbers` comma-separated (or repeated), at most 50. 10/min."""

    permission_classes = [IsOperator]
    rate_limits = {"GET": "10/m"}

    @extend_schema_serializer(component_name="ContactCheckOutput")
    class OutputSerializer(serializers.Serializer):
        success = serializers.BooleanField()
        results = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        parameters=[
            OpenApiParameter("sessionId", OpenApiTypes.UUID, required=True),
            OpenApiParameter("numbers", OpenApiTypes.STR, required=True, description="comma-separated"),
        ],
        responses=OutputSerializer,
        operation_id="contacts_check",
    )
    def get(self, request: Request) -> Response:
        raw = [part for value in request.query_params.getlist("numbers") for part in value.split(",")]
        raw = [part.strip() for part in raw if part.strip()]
        if not raw:
            raise ValidationFailed("numbers: at least one number (comma-separated) is required.")
        if len(raw) > MAX_CHECK_NUMBERS:
            raise ValidationFailed(f"numbers: at most {MAX_CHECK_NUMBERS} per request.")
        numbers = list(dict.fromkeys(normalize_number(n, field="numbers") for n in raw))
        session_id = request.query_params.get("sessionId", "")
        if not session_id:
            raise ValidationFailed("sessionId: required.")
        session = self.session(session_id)
        results = services.contacts_check(session=session, numbers=numbers)
        return Response(
            {
                "success": True,
                "results": [{"number": r.number, "jid": r.jid, "exists": r.exists} for r in results],
            }
        )


class ProfilePictureApi(MessageView):
    """Set the own profile picture, or a group's (`jid`, the session must be a group admin)."""

    #: An http(s) picture is fetched, then the engine called: no transaction held across either.
    request_transaction = False

    @extend_schema_serializer(component_name="ProfilePictureInput")
    class InputSerializer(SessionInput):
        image = serializers.CharField(help_text="Base64 (or a data URI) or an http(s) URL; JPEG or PNG.")
        jid = serializers.CharField(required=False, default="", allow_blank=True, max_length=100)

        def validate_jid(self, value: str) -> str:
            return normalize_jid(value, field="jid") if value else ""

    @extend_schema(
        request=InputSerializer, responses=SuccessSerializer, operation_id="contacts_profile_picture"
    )
    def put(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        services.profile_picture_set(session=session, image=data["image"], jid=data["jid"])
        target = "group picture" if data["jid"] and data["jid"] != session.jid else "profile picture"
        return Response({"success": True, "message": f"The {target} was updated."})


class ProfileStatusApi(MessageView):
    """Set the own status ("about"), at most 139 characters."""

    #: The engine is called (an engine process over the bus): no transaction held across it.
    request_transaction = False

    @extend_schema_serializer(component_name="ProfileStatusInput")
    class InputSerializer(SessionInput):
        status = serializers.CharField(max_length=139, allow_blank=True, trim_whitespace=False)

    @extend_schema(
        request=InputSerializer, responses=SuccessSerializer, operation_id="contacts_profile_status"
    )
    def put(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        services.profile_status_set(session=session, status=data["status"])
        return Response({"success": True, "message": "The profile status was updated."})


class ProfileNameApi(MessageView):
    """Set the own display name, 1 to 25 characters."""

    #: The engine is called (an engine process over the bus): no transaction held across it.
    request_transaction = False

    @extend_schema_serializer(component_name="ProfileNameInput")
    class InputSerializer(SessionInput):
        name = serializers.CharField(max_length=25)

    @extend_schema(request=InputSerializer, responses=SuccessSerializer, operation_id="contacts_profile_name")
    def put(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        services.profile_name_set(session=session, name=data["name"])
        return Response({"success": True, "message": "The profile name was updated."})
