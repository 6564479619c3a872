"""Forms of the customer account area. Field errors come from here; rules shared with the API (IP
allow-lists, webhook URLs) are checked again by the services the views call."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

from django import forms
from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError

from accounts.models import ApiKey
from accounts.netaddr import parse_networks
from webhooks.catalogue import EVENTS
from webhooks.models import Webhook


class SignupForm(forms.Form):
    email = forms.EmailField(max_length=150)
    password = forms.CharField(widget=forms.PasswordInput, strip=False)
    confirmation = forms.CharField(label="Password (again)", widget=forms.PasswordInput, strip=False)

    def clean(self) -> dict:
        data = super().clean()
        password, confirmation = data.get("password"), data.get("confirmation")
        if password and confirmation and password != confirmation:
            self.add_error("confirmation", "The two passwords differ.")
        elif password:
            try:
                validate_password(password)
            except ValidationError as error:
                self.add_error("password", error)
        return data


class KeyForm(forms.Form):
    name = forms.CharField(max_length=100, required=False, help_text="A label for you, e.g. 'CRM'.")
    role = forms.ChoiceField(choices=ApiKey.Role.choices, initial=ApiKey.Role.VIEWER)
    expires_on = forms.DateField(
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="Empty: never expires. The key stops working at the end of this day.",
    )
    allowed_ips = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One IP address or CIDR per line; empty allows any address.",
    )
    allowed_sessions = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Tick none to allow every session.",
    )

    def __init__(self, *args, sessions: list[tuple[str, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["allowed_sessions"].choices = sessions

    def clean_allowed_ips(self) -> list[str]:
        lines = [line.strip() for line in self.cleaned_data["allowed_ips"].splitlines() if line.strip()]
        try:
            return [str(network) for network in parse_networks(lines)]
        except ValueError as error:
            raise ValidationError(str(error)) from None

    def clean_expires_on(self):
        day = self.cleaned_data["expires_on"]
        if day is not None and day < datetime.now(ZoneInfo(settings.TIME_ZONE)).date():
            raise ValidationError("Pick today or a later day.")
        return day

    def expires_at(self) -> datetime | None:
        day = self.cleaned_data["expires_on"]
        if day is None:
            return None
        return datetime.combine(day, time.max, tzinfo=ZoneInfo(settings.TIME_ZONE))


class SessionForm(forms.Form):
    name = forms.CharField(max_length=100)


class PairingCodeForm(forms.Form):
    phone = forms.RegexField(
        regex=r"^\d{8,15}$",
        max_length=15,
        help_text="The phone's number in international format, digits only (e.g. 5511999990001).",
        error_messages={"invalid": "Digits only, country code first, 8 to 15 digits."},
    )


class WebhookForm(forms.Form):
    session = forms.ChoiceField()
    url = forms.URLField(max_length=2000, assume_scheme="https")
    events = forms.MultipleChoiceField(
        choices=[(name, f"{name} — {text}") for name, text in EVENTS.items()],
        widget=forms.CheckboxSelectMultiple,
    )
    secret = forms.CharField(
        max_length=500,
        required=False,
        help_text="Signs each delivery (x-webhook-signature). Never shown again; leave empty to keep.",
    )
    retry_count = forms.IntegerField(
        min_value=Webhook.MIN_RETRY_COUNT,
        max_value=Webhook.MAX_RETRY_COUNT,
        initial=Webhook.DEFAULT_RETRY_COUNT,
        label="Attempts per event",
    )

    def __init__(self, *args, sessions: list[tuple[str, str]], editing: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["session"].choices = sessions
        if editing:  # a webhook stays on its session
            del self.fields["session"]
