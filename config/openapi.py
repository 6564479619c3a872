"""OpenAPI generation tweaks shared by every interface."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import Direction
from rest_framework import serializers


class AutoSchema(SpectacularAutoSchema):
    """Name nested serializers after their view, so the house style's `InputSerializer` and
    `OutputSerializer` inside each `<Entity><Action>Api` become distinct components
    (`KeyListCreateApiInput`, `WebhookListCreateApiInput`, …) instead of colliding."""

    def get_serializer_name(self, serializer: serializers.Serializer, direction: Direction) -> str:
        cls = serializer.__class__
        return cls.__qualname__.replace(".", "") if "." in cls.__qualname__ else cls.__name__
