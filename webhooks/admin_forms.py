"""Admin forms of webhooks and instance-webhook configurations: the same checks as the gateway and the
instance API (event catalogue, SSRF rules for URLs, the number filter), shown as field errors."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db import models

from core.errors import ValidationFailed
from net.transport import validate_target_url
from webhooks.body_filters import filter_clean
from webhooks.catalogue import SUBSCRIBABLE, canonical_events
from webhooks.instance.services import URL_SETTINGS, allow_number_clean
from webhooks.models import InstanceWebhookConfig, Webhook
from webhooks.registered.custom_headers import headers_clean
from webhooks.schedules import retry_schedule_clean

URL_FIELDS = list(URL_SETTINGS.values())


def _formfield(field: models.Field, **kwargs: Any) -> forms.Field | None:
    """Model fields as form fields; a URL typed without a scheme means https (Django 6's default)."""
    if isinstance(field, models.URLField):
        kwargs.setdefault("assume_scheme", "https")
    return field.formfield(**kwargs)


def _target_url(value: str) -> str:
    """A URL as the gateway accepts it. Only a changed URL is checked: the check resolves the host,
    and an unchanged one must not stop staff from editing other fields while DNS is down."""
    try:
        validate_target_url(value)
    except ValidationFailed as error:
        raise ValidationError(error.message) from None
    return value


class WebhookForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        choices=[(name, name) for name in SUBSCRIBABLE],
        widget=forms.CheckboxSelectMultiple,
        help_text="The events POSTed to the URL (at least one; docs/webhooks.md lists what each carries).",
    )

    headers = forms.JSONField(
        required=False,
        help_text=(
            'Custom headers sent with every delivery, as a JSON object {"Name": "value"}: at most 10; '
            "Host, Content-*, Connection, Transfer-Encoding, webhook-*, x-webhook-*, x-ponte-* are refused."
        ),
    )

    class Meta:
        model = Webhook
        fields = [
            "url",
            "events",
            "retry_count",
            "retry_schedule",
            "filter",
            "rate_limit",
            "headers",
            "status",
        ]
        formfield_callback = _formfield

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "events" in self.fields and self.instance.pk:
            # Stored names are canonical; an alias written by other means shows under its canonical name.
            try:
                self.initial["events"] = canonical_events(self.instance.events or [])
            except (ValidationFailed, TypeError):
                self.initial["events"] = []

    def clean_url(self) -> str:
        url = self.cleaned_data["url"].strip()
        return _target_url(url) if "url" in self.changed_data else url

    def clean_headers(self) -> dict[str, str] | None:
        try:
            return headers_clean(self.cleaned_data["headers"]) or None
        except ValidationFailed as error:
            raise ValidationError(error.message.removeprefix("headers: ")) from None

    def clean_retry_schedule(self) -> str | list[int]:
        try:
            return retry_schedule_clean(self.cleaned_data["retry_schedule"])
        except ValidationFailed as error:
            raise ValidationError(error.message.removeprefix("retrySchedule: ")) from None

    def clean_filter(self) -> dict | None:
        try:
            return filter_clean(self.cleaned_data["filter"])
        except ValidationFailed as error:
            raise ValidationError(error.message.removeprefix("filter: ")) from None

    def clean_events(self) -> list[str]:
        try:
            return canonical_events(self.cleaned_data["events"])
        except ValidationFailed as error:
            raise ValidationError(error.message) from None


class InstanceWebhookConfigForm(forms.ModelForm):
    class Meta:
        model = InstanceWebhookConfig
        formfield_callback = _formfield
        fields = ["session", "allow_webhook", "allow_number", "webhook_format", *URL_FIELDS]

    def clean_allow_number(self) -> str:
        try:
            return allow_number_clean(self.cleaned_data["allow_number"])
        except ValidationFailed as error:
            raise ValidationError(error.message.removeprefix("allowNumber: ")) from None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for name in URL_FIELDS:
            url = (cleaned.get(name) or "").strip()
            if url and name in self.changed_data:
                try:
                    cleaned[name] = _target_url(url)
                except ValidationError as error:
                    self.add_error(name, error)
        return cleaned
