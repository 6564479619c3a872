"""Guards shared by the admin screens of every app."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.views.main import ERROR_FLAG
from django.core.exceptions import ValidationError
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect


def has_nul(request: HttpRequest) -> bool:
    """A NUL in the query string: PostgreSQL refuses it in a text comparison (a 500 from a filter)."""
    return any("\x00" in value for values in request.GET.lists() for value in values[1])


def bad_lookup_redirect(path: str) -> HttpResponse:
    """What Django's change list answers to lookups it cannot use: the list again, flagged with ?e=1."""
    return HttpResponseRedirect(f"{path}?{ERROR_FLAG}=1")


class QueryStringGuard:
    """Mixed into a ModelAdmin: a change list asked for with a NUL in a filter is treated like any
    other unusable lookup (Django checks types, not NULs, and the database then fails)."""

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        if has_nul(request):
            return bad_lookup_redirect(request.path)
        return super().changelist_view(request, extra_context)  # type: ignore[misc]


def _holds_nul(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(key) or _holds_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds_nul(item) for item in value)
    return False


class StrictJSONField(forms.JSONField):
    """Raw JSON typed by staff: of the shape the model expects (an object or a list), and without
    \\u0000, which PostgreSQL's jsonb refuses (a 500 on save)."""

    def __init__(self, *, shape: type[dict] | type[list] | None = None, **kwargs: Any) -> None:
        self.shape = shape
        super().__init__(**kwargs)

    def validate(self, value: object) -> None:
        super().validate(value)
        if value in self.empty_values:
            return
        if self.shape is not None and not isinstance(value, self.shape):
            raise ValidationError(f"Give a JSON {'object' if self.shape is dict else 'list'}.")
        if _holds_nul(value):
            raise ValidationError("JSON text must not contain \\u0000 (a NUL character).")


class StrictJSONAdmin:
    """Mixed into a ModelAdmin: its editable JSON fields are StrictJSONField, each of the shape named
    in `json_shapes` (e.g. {"content": dict})."""

    json_shapes: dict[str, type[dict] | type[list]] = {}

    def formfield_for_dbfield(self, db_field: models.Field, request: HttpRequest, **kwargs: Any):
        if isinstance(db_field, models.JSONField):
            shape = self.json_shapes.get(db_field.name)
            return db_field.formfield(form_class=StrictJSONField, shape=shape, **kwargs)
        return super().formfield_for_dbfield(db_field, request, **kwargs)  # type: ignore[misc]
