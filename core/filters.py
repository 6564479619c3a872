"""django-filter pieces shared by the interfaces' list filters.

A query filter of the keyed APIs refuses what the rest of the API refuses, with the same words: its
value is checked by a DRF serializer field (the strict string rule, blank refused, a present but empty
value read as the value it is), wrapped as a form field for the FilterSet. The OpenAPI parameter is
declared from that serializer field (core.openapi turns a FilterSet into parameters).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import django_filters
from django import forms
from django.db.models import QuerySet
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request

from core.errors import validation_failed

if TYPE_CHECKING:  # rest_framework.generics imports this module through DEFAULT_FILTER_BACKENDS
    from rest_framework.views import APIView


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


class FilterBackend(DjangoFilterBackend):
    """django-filter's DRF backend (REST_FRAMEWORK's DEFAULT_FILTER_BACKENDS), refusing a wrong query
    with Ponte's ValidationFailed, which core.errors renders in the interface's shape, one line per
    wrong parameter. A view whose list takes other query parameters (pagination) names their
    serializer in `query_serializer_class`: they are checked in the same pass, their lines first, so
    one reply names every wrong parameter. An error a field raises itself (an unknown session status)
    is answered alone, at once; so is one a filter raises while filtering (a session not found)."""

    def filter_queryset(self, request: Request, queryset: QuerySet, view: APIView) -> QuerySet:
        filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            return queryset
        errors: dict[str, list[str]] = {}
        other_class = getattr(view, "query_serializer_class", None)
        if other_class is not None:
            other = other_class(data=request.query_params)
            if not other.is_valid():
                errors.update({name: [str(m) for m in messages] for name, messages in other.errors.items()})
        if not filterset.is_valid():
            errors.update({name: list(messages) for name, messages in filterset.errors.items()})
        if errors:
            raise validation_failed(errors)
        return filterset.qs
