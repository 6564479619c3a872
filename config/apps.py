"""The project-wide app: behaviour every interface shares, installed once at start-up."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from rest_framework import fields


def _strict_string(self: fields.CharField, data: Any) -> str:
    # DRF's CharField turns numbers into strings (`{"name": 0}` becomes "0"); a string field of
    # Ponte's contracts takes a JSON string only. Then DRF's own checks (blank, whitespace, lengths).
    if not isinstance(data, str):
        self.fail("invalid")
    return _drf_to_internal_value(self, data)


_drf_to_internal_value = fields.CharField.to_internal_value


class PonteConfig(AppConfig):
    name = "config"
    label = "ponte"
    verbose_name = "Ponte"

    def ready(self) -> None:
        # Every CharField (and its subclasses: RegexField, EmailField, URLField, SlugField...), so the
        # endpoints of every app, present and future, refuse a number where a string is declared.
        fields.CharField.to_internal_value = _strict_string  # type: ignore[method-assign]
