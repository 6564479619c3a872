"""Status (stories): `POST /api/status/text`, `/api/status/media`, `/api/status/delete`;
`GET /api/status` (the session's own, last 24 h) and `GET /api/status/contacts` (contacts' statuses seen
in the last 24 h, from `status` events). Posts count against the plan's daily quota like every send."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from messaging.api.bases import SendView, SessionInput
from messaging.api.common import MetaSerializer, PaginationQuerySerializer
from messaging.api.directory import SESSION_QUERY, DirectoryView
from messaging.api.sandbox_status import COLOR
from messaging.services import status as services
from messaging.status_models import StatusPost
from messaging.values import STATUS_FONTS

MAX_STATUS_TEXT = 700  # what WhatsApp's own status editor takes
MAX_CAPTION = 1024


@extend_schema_serializer(component_name="Status")
class StatusSerializer(serializers.Serializer):
    id = serializers.CharField(source="status_id", help_text="The status's message id.")
    sender = serializers.CharField(help_text="Who posted it (the session's own JID for its statuses).")
    pushName = serializers.CharField(source="push_name")
    fromMe = serializers.BooleanField(source="from_me")
    type = serializers.ChoiceField(choices=StatusPost.Type.choices)
    text = serializers.CharField(help_text="A text status's text, or a media status's caption.")
    backgroundColor = serializers.CharField(
        source="background_color", allow_null=True, help_text="Text statuses: `#RRGGBB`; null otherwise."
    )
    font = serializers.IntegerField(allow_null=True, help_text="Text statuses: 0 to 5.")
    mediaUrl = serializers.CharField(
        source="media_url", allow_null=True, help_text="Media statuses: a signed, expiring link."
    )
    mimeType = serializers.CharField(source="mime_type", allow_null=True)
    postedAt = serializers.DateTimeField(source="posted_at")
    expiresAt = serializers.DateTimeField(source="expires_at", help_text="24 hours after it was posted.")

    def to_representation(self, instance: StatusPost) -> dict:
        data = super().to_representation(instance)
        if instance.type != StatusPost.Type.TEXT:
            data["backgroundColor"] = data["font"] = None
        return data


class StatusListSerializer(serializers.Serializer):
    data = StatusSerializer(many=True)
    meta = MetaSerializer()


class StatusTextApi(SendView):
    """Post a text status to the session's contacts."""

    @extend_schema_serializer(component_name="StatusTextInput")
    class InputSerializer(SessionInput):
        text = serializers.CharField(max_length=MAX_STATUS_TEXT)
        backgroundColor = serializers.RegexField(COLOR, help_text="`#RRGGBB`")
        font = serializers.IntegerField(min_value=0, max_value=STATUS_FONTS - 1)

    @extend_schema(request=InputSerializer, responses=StatusSerializer, operation_id="status_text")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        post = services.status_post_text(
            session=session, text=data["text"], background_color=data["backgroundColor"], font=data["font"]
        )
        return Response(StatusSerializer(post).data)


class StatusMediaApi(SendView):
    """Post an image or video status: exactly one of `url` (fetched through the SSRF-safe transport) or
    `base64`, at most MESSAGING_MEDIA_MAX_BYTES."""

    @extend_schema_serializer(component_name="StatusMediaInput")
    class InputSerializer(SessionInput):
        type = serializers.ChoiceField(choices=("image", "video"))
        url = serializers.URLField(max_length=2000, required=False, default="", allow_blank=True)
        base64 = serializers.CharField(required=False, default="", allow_blank=True)
        caption = serializers.CharField(max_length=MAX_CAPTION, required=False, default="", allow_blank=True)

        def validate(self, attrs: dict) -> dict:
            if bool(attrs["url"]) == bool(attrs["base64"]):
                raise serializers.ValidationError("Give exactly one of `url` or `base64`.")
            return attrs

    @extend_schema(request=InputSerializer, responses=StatusSerializer, operation_id="status_media")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        post = services.status_post_media(
            session=session, type_=data["type"], url=data["url"], data=data["base64"], caption=data["caption"]
        )
        return Response(StatusSerializer(post).data)


class StatusDeleteApi(SendView):
    """Delete one of the session's own statuses of the last 24 hours (404 STATUS_NOT_FOUND otherwise)."""

    @extend_schema_serializer(component_name="StatusDeleteInput")
    class InputSerializer(SessionInput):
        id = serializers.CharField(max_length=128)

    @extend_schema(request=InputSerializer, responses=StatusSerializer, operation_id="status_delete")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        return Response(StatusSerializer(services.status_delete(session=session, status_id=data["id"])).data)


class StatusListApi(DirectoryView):
    """The session's own statuses of the last 24 hours, newest first."""

    reaches_engine = False

    @extend_schema(
        parameters=[SESSION_QUERY, PaginationQuerySerializer],
        responses=StatusListSerializer,
        operation_id="status_list",
    )
    def get(self, request: Request) -> Response:
        session = self.query_session(request)
        return self.page(request, services.own_statuses(session), StatusSerializer)


class StatusContactsApi(DirectoryView):
    """Contacts' statuses the session saw in the last 24 hours (from `status` events), newest first."""

    reaches_engine = False

    @extend_schema(
        parameters=[SESSION_QUERY, PaginationQuerySerializer],
        responses=StatusListSerializer,
        operation_id="status_contacts",
    )
    def get(self, request: Request) -> Response:
        session = self.query_session(request)
        return self.page(request, services.contact_statuses(session), StatusSerializer)
