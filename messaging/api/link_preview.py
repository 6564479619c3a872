"""The `linkPreview` field of a text send (`POST /api/messages/send`): `true`, `false` or the preview."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from messaging.values import LinkPreview

MAX_THUMBNAIL_BYTES = 512 * 1024


class GivenPreviewSerializer(serializers.Serializer):
    url = serializers.URLField(max_length=2000, help_text="A link of the text.")
    title = serializers.CharField(max_length=200)
    description = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)
    thumbnailBase64 = serializers.CharField(
        required=False, default="", allow_blank=True, help_text="A JPEG, base64."
    )

    def validate_thumbnailBase64(self, value: str) -> bytes:
        if not value:
            return b""
        if len(value) > MAX_THUMBNAIL_BYTES * 4 // 3 + 4:
            raise serializers.ValidationError(f"at most {MAX_THUMBNAIL_BYTES} bytes.")
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise serializers.ValidationError("not valid base64.") from None


@extend_schema_field(
    {
        "oneOf": [
            {"type": "boolean", "description": "true: Ponte reads the first link's Open Graph tags."},
            {
                "type": "object",
                "description": "The preview to show; `url` must be a link of the text.",
                "properties": {
                    "url": {"type": "string", "format": "uri", "maxLength": 2000},
                    "title": {"type": "string", "maxLength": 200},
                    "description": {"type": "string", "maxLength": 500},
                    "thumbnailBase64": {"type": "string", "description": "A JPEG, base64."},
                },
                "required": ["url", "title"],
            },
        ]
    }
)
class LinkPreviewField(serializers.Field):
    """`true` (read the page), `false`/absent (none), or the preview itself: (read, given)."""

    def to_internal_value(self, data: Any) -> tuple[bool, LinkPreview | None]:
        if isinstance(data, bool):
            return data, None
        if not isinstance(data, dict):
            raise serializers.ValidationError("true, false, or an object {url, title, description?}.")
        given = GivenPreviewSerializer(data=data)
        if not given.is_valid():
            raise serializers.ValidationError(given.errors)
        values = given.validated_data
        preview = LinkPreview(
            url=values["url"],
            title=values["title"],
            description=values["description"],
            thumbnail=values["thumbnailBase64"],
        )
        return False, preview

    def to_representation(self, value: Any) -> Any:  # input only
        return value
