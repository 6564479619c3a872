"""django-filter pieces shared by the interfaces' list filters.

A query filter of the keyed APIs refuses what the rest of the API refuses, with the same words: its
value is checked by a DRF serializer field (the strict string rule, blank refused, a present but empty
value read as the value it is), wrapped as a form field for the FilterSet. The OpenAPI parameter is
declared from that serializer field (core.openapi turns a FilterSet into parameters).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class SerializerFormField(forms.Field):
    """A form field whose value is validated (and converted) by a DRF serializer field."""

    def __init__(self, *, serializer_field: serializers.Field, query_name: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # A fresh copy bound to the parameter's name: fields that build their messages from their
        # name (a chat JID: "Invalid chat ...") say which parameter was wrong.
        self.serializer_field = copy.deepcopy(serializer_field)
        self.serializer_field.bind(field_name=query_name, parent=None)

    def clean(self, value: Any) -> Any:
        if value is None:  # the parameter is absent
            if self.required:
                raise forms.ValidationError(self.serializer_field.error_messages["required"], code="required")
            return None
        try:
            return self.serializer_field.run_validation(value)
        except serializers.ValidationError as error:
            details = error.detail if isinstance(error.detail, list) else [error.detail]
            raise forms.ValidationError([str(detail) for detail in details]) from None


class SerializerFieldFilter(django_filters.Filter):
    """A filter on `field_name` whose query value is checked by `serializer_field` (required when the
    serializer field is), documented in OpenAPI as that field."""

    field_class = SerializerFormField

    def __init__(self, serializer_field: serializers.Field, *, query_name: str, **kwargs: Any) -> None:
        kwargs.setdefault("required", serializer_field.required)
        super().__init__(serializer_field=serializer_field, query_name=query_name, **kwargs)
        extend_schema_field(serializer_field)(self)


def filterset_valid(
    filterset_class: type[django_filters.FilterSet],
    query: Mapping[str, Any],
    queryset: QuerySet,
    *,
    other: serializers.Serializer | None = None,
) -> django_filters.FilterSet:
    """The bound FilterSet once its values are valid; otherwise a 400 in the interface's error shape
    (core.errors), one line per wrong parameter. `other` checks the list's other query parameters
    (pagination) in the same reply, its lines first. An error a field raises itself (an unknown
    session status) is answered alone, at once."""
    errors: dict[str, list[str]] = {}
    if other is not None and not other.is_valid():
        errors.update({name: [str(m) for m in messages] for name, messages in other.errors.items()})
    filterset = filterset_class(data=query, queryset=queryset)
    if not filterset.is_valid():
        errors.update({name: list(messages) for name, messages in filterset.errors.items()})
    if errors:
        raise serializers.ValidationError(errors)
    return filterset
