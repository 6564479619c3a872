"""OPTIONS replies: the view's name, description, renderers and parsers, never its serializers' fields.

DRF's SimpleMetadata lists a generic view's input fields under `actions`, building its serializer; Ponte's
list views are generic (for the filter backend) without a `serializer_class`, and their bodies are
described in the OpenAPI document, so OPTIONS answers the same for every view."""

from __future__ import annotations

from typing import Any

from rest_framework.metadata import SimpleMetadata


class ViewMetadata(SimpleMetadata):
    def determine_actions(self, request: Any, view: Any) -> dict[str, Any]:
        return {}
