"""`POST /api/messages/media` (send an image, video, audio, voice note, document or sticker) and
`GET /api/media/<token>` (the bytes behind a `mediaUrl`: signed, expiring, no API key)."""

from __future__ import annotations

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import ApplicationError, NotFound
from messaging.api.bases import RecipientField, SendView, SessionInput
from messaging.api.mentions import MentionsInput, mentions_input
from messaging.api.messages import QuotedSerializer, SentSerializer, quoted_input, sent_body
from messaging.media import MediaLinkExpired, MediaLinkInvalid, media_link_read, media_storage
from messaging.services.media import message_send_media
from messaging.values import MEDIA_SEND_TYPES

MAX_CAPTION = 1024


class MediaLinkGone(ApplicationError):
    status_code = 410
    code = "MEDIA_LINK_EXPIRED"
    gateway_text = "Media link expired"
    default_message = "This media link has expired; the event's newer link or the message history has one."


class MessageMediaApi(SendView):
    """Send media: exactly one of `url` (fetched by Ponte through its SSRF-safe transport) or `base64`
    (optionally a data URI), at most MESSAGING_MEDIA_MAX_BYTES. Counts against the daily quota."""

    @extend_schema_serializer(component_name="MessageMediaInput")
    class InputSerializer(MentionsInput, SessionInput):
        to = RecipientField()
        type = serializers.ChoiceField(choices=MEDIA_SEND_TYPES)
        url = serializers.URLField(max_length=2000, required=False, default="", allow_blank=True)
        base64 = serializers.CharField(required=False, default="", allow_blank=True, trim_whitespace=True)
        caption = serializers.CharField(
            max_length=MAX_CAPTION, required=False, default="", allow_blank=True, trim_whitespace=False
        )
        fileName = serializers.CharField(max_length=255, required=False, default="", allow_blank=True)
        mimeType = serializers.RegexField(
            r"^([\w.+-]+/[\w.+-]+(;.*)?)?$", max_length=100, required=False, default="", allow_blank=True
        )
        quoted = QuotedSerializer(required=False, allow_null=True)

        def validate(self, attrs: dict) -> dict:
            if bool(attrs["url"]) == bool(attrs["base64"]):
                raise serializers.ValidationError("Give exactly one of `url` or `base64`.")
            if attrs["caption"] and attrs["type"] in ("audio", "voice", "sticker"):
                raise serializers.ValidationError({"caption": f"{attrs['type']} messages have no caption."})
            if (attrs["mentions"] or attrs["mentionAll"]) and attrs["type"] in ("audio", "voice", "sticker"):
                raise serializers.ValidationError({"mentions": "only in a caption (image, video, document)."})
            return attrs

    @extend_schema(request=InputSerializer, responses=SentSerializer, operation_id="messages_media")
    def post(self, request: Request) -> Response:
        session, data = self.validated(self.InputSerializer)
        message = message_send_media(
            session=session,
            to=data["to"],
            type_=data["type"],
            url=data["url"],
            data=data["base64"],
            caption=data["caption"],
            file_name=data["fileName"],
            mime_type=data["mimeType"],
            quoted=quoted_input(data.get("quoted")),
            mentions=mentions_input(session, data["to"], data),
            savepoint=False,
        )
        return Response(sent_body(message))


class MediaFileApi(APIView):
    """The exact bytes of a stored media item. The link is the credential: signed and expiring
    (MESSAGING_MEDIA_URL_TTL_SECONDS); 404 for a forged or unknown link, 410 once expired."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []
    reaches_engine = False
    extra_error_statuses = (410,)

    @extend_schema(
        # The stored type (image/jpeg, audio/ogg, …) is the reply's content type.
        responses={(200, "*/*"): OpenApiResponse(OpenApiTypes.BINARY)},
        operation_id="media_get",
    )
    def get(self, request: Request, token: str) -> FileResponse:
        try:
            link = media_link_read(token)
        except MediaLinkInvalid:
            raise NotFound("No media behind this link.") from None
        except MediaLinkExpired:
            raise MediaLinkGone() from None
        storage = media_storage()
        if not storage.exists(link.path):  # deleted with its session
            raise NotFound("No media behind this link.")
        response = FileResponse(
            storage.open(link.path, "rb"),
            content_type=link.mime_type or "application/octet-stream",
            as_attachment=True,
            filename=link.file_name or link.path.rsplit("/", 1)[-1],
        )
        # The type is the sender's word: never let a browser run it as a page of Ponte's origin.
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = "default-src 'none'; sandbox"
        response["Cache-Control"] = "private, max-age=300"
        return response
