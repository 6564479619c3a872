"""The project-wide app: behaviour every interface shares, installed once at start-up."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig
from rest_framework import fields
from rest_framework.utils import html


def _strict_string(self: fields.CharField, data: Any) -> str:
    # DRF's CharField turns numbers into strings (`{"name": 0}` becomes "0"); a string field of
    # Ponte's contracts takes a JSON string only. Then DRF's own checks (blank, whitespace, lengths).
    if not isinstance(data, str):
        self.fail("invalid")
    return _drf_to_internal_value(self, data)


_drf_to_internal_value = fields.CharField.to_internal_value


def _present_means_given(self: fields.Field, dictionary: Any) -> Any:
    # DRF reads a query parameter that is present but empty (`?page=`, `?format=`) as absent, so as the
    # field's default; the schema declares an integer or an enum there, so Ponte treats it as the value
    # it is: '' (refused unless the field allows blank). Query strings are DRF's only form-style input
    # here (bodies are JSON; the admin and the account area use Django forms).
    if html.is_html_input(dictionary) and dictionary.get(self.field_name) == "" and not self.allow_null:
        return ""
    return _drf_get_value(self, dictionary)


_drf_get_value = fields.Field.get_value


class PonteConfig(AppConfig):
    name = "config"
    label = "ponte"
    verbose_name = "Ponte"

    def ready(self) -> None:
        # Every CharField (and its subclasses: RegexField, EmailField, URLField, SlugField...), so the
        # endpoints of every app, present and future, refuse a number where a string is declared.
        fields.CharField.to_internal_value = _strict_string  # type: ignore[method-assign]
        fields.Field.get_value = _present_means_given  # type: ignore[method-assign]
        from core import metrics  # noqa: F401  (its system check; the metrics of this process)


class PonteAdminConfig(AdminConfig):
    """Django's admin app with Ponte's site (accounts/admin_site.py), whose sign-in is rate limited."""

    default_site = "accounts.admin_site.PonteAdminSite"
