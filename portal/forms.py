"""Forms of the customer account area. Field errors come from here; rules shared with the API (IP
allow-lists, webhook URLs) are checked again by the services the views call."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.utils.functional import lazy
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from accounts.models import ApiKey
from accounts.netaddr import parse_networks
from accounts.signin import SigninLimits
from webhooks.catalogue import SUBSCRIBABLE
from webhooks.models import Webhook


class SignupForm(forms.Form):
    email = forms.EmailField(label=_("Email"), max_length=150)
    password = forms.CharField(label=_("Password"), widget=forms.PasswordInput, strip=False)
    confirmation = forms.CharField(label=_("Password (again)"), widget=forms.PasswordInput, strip=False)

    def clean(self) -> dict:
        data = super().clean()
        password, confirmation = data.get("password"), data.get("confirmation")
        if password and confirmation and password != confirmation:
            self.add_error("confirmation", _("The two passwords differ."))
        elif password:
            try:
                validate_password(password)
            except ValidationError as error:
                self.add_error("password", error)
        return data


class SigninForm(SigninLimits, AuthenticationForm):
    """Django's sign-in form, labelled for what customers type: their email (their user name), and
    limited as every sign-in is (accounts/signin.py)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["username"]
        field.label = _("Email")
        field.widget.input_type = "email"
        field.widget.attrs["autocomplete"] = "email"


class KeyForm(forms.Form):
    name = forms.CharField(
        label=_("Name"), max_length=100, required=False, help_text=_("A label for you, e.g. 'CRM'.")
    )
    # Each choice says what the role can do. Operator is the default: the role most integrations need
    # (a viewer key cannot send, pair or register webhooks).
    role = forms.ChoiceField(
        label=_("Role"),
        choices=[
            (ApiKey.Role.VIEWER, _("Viewer: reads only (session status, messages, lists)")),
            (ApiKey.Role.OPERATOR, _("Operator: also connects sessions, sends messages, manages webhooks")),
            (ApiKey.Role.ADMIN, _("Admin: everything, also creates and deletes sessions and manages keys")),
        ],
        initial=ApiKey.Role.OPERATOR,
        help_text=_("Creating or deleting a session over the API needs an admin key."),
    )
    expires_on = forms.DateField(
        label=_("Expires on"),
        required=False,
        # A date input's value is ISO in every language; the browser shows it in the visitor's format.
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        help_text=_("Empty: never expires. The key stops working at the end of this day."),
    )
    allowed_ips = forms.CharField(
        label=_("Allowed IPs"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("One IP address or CIDR per line; empty allows any address."),
    )
    allowed_sessions = forms.MultipleChoiceField(
        label=_("Allowed sessions"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Tick none to allow every session."),
    )

    def __init__(self, *args, sessions: list[tuple[str, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["allowed_sessions"].choices = sessions

    def clean_allowed_ips(self) -> list[str]:
        lines = [line.strip() for line in self.cleaned_data["allowed_ips"].splitlines() if line.strip()]
        networks = []
        for line in lines:  # line by line, to name the bad one in the visitor's language
            try:
                networks += parse_networks([line])
            except ValueError:
                raise ValidationError(
                    _("%(value)s is not an IP address or CIDR."), params={"value": repr(line)}
                ) from None
        return [str(network) for network in networks]

    def clean_expires_on(self):
        day = self.cleaned_data["expires_on"]
        if day is not None and day < datetime.now(ZoneInfo(settings.TIME_ZONE)).date():
            raise ValidationError(_("Pick today or a later day."))
        return day

    def expires_at(self) -> datetime | None:
        day = self.cleaned_data["expires_on"]
        if day is None:
            return None
        return datetime.combine(day, time.max, tzinfo=ZoneInfo(settings.TIME_ZONE))


class SessionForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100)


class PairingCodeForm(forms.Form):
    phone = forms.RegexField(
        label=_("Phone"),
        regex=r"^\d{8,15}$",
        max_length=15,
        help_text=_("The phone's number in international format, digits only (e.g. 5511999990001)."),
        error_messages={"invalid": _("Digits only, country code first, 8 to 15 digits.")},
    )


event_label = lazy(lambda name, text: format_html("<code>{}</code> — {}", name, text), SafeString)


class WebhookForm(forms.Form):
    session = forms.ChoiceField(label=_("Session"))
    url = forms.URLField(label="URL", max_length=2000, assume_scheme="https")
    events = forms.MultipleChoiceField(
        label=_("Events"),
        # The event's name is an API value (as code, the same in every language); its text is translated.
        choices=[(name, event_label(name, _(text))) for name, text in SUBSCRIBABLE.items()],
        widget=forms.CheckboxSelectMultiple,
    )
    secret = forms.CharField(
        label=_("Secret"),
        max_length=500,
        required=False,
        help_text=_("Signs each delivery (x-webhook-signature). Never shown again."),
    )
    retry_count = forms.IntegerField(
        min_value=Webhook.MIN_RETRY_COUNT,
        max_value=Webhook.MAX_RETRY_COUNT,
        initial=Webhook.DEFAULT_RETRY_COUNT,
        label=_("Attempts per event"),
    )

    def __init__(self, *args, sessions: list[tuple[str, str]], editing: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["session"].choices = sessions
        if editing:  # a webhook stays on its session; a blank secret keeps the one it has
            del self.fields["session"]
            self.fields["secret"].help_text = _(
                "Signs each delivery (x-webhook-signature). Never shown again; leave empty to keep."
            )


class BotForm(forms.Form):
    """A bot as a person sets one up: the kind's address and the few settings each kind needs; the
    rest keeps its defaults (the API sets everything: docs/integrations.md)."""

    session = forms.ChoiceField(label=_("Session"))
    name = forms.CharField(label=_("Name"), max_length=100)
    kind = forms.ChoiceField(
        label=_("Kind"),
        choices=[
            ("http", _("HTTP (n8n, Make, Zapier…)")),
            ("openai", _("OpenAI-compatible model")),
            ("typebot", "Typebot"),
        ],
    )
    url = forms.URLField(
        label="URL",
        max_length=500,
        assume_scheme="https",
        help_text=_(
            "HTTP: where Ponte posts each message; model: its base URL (…/v1); Typebot: its address."
        ),
    )
    model = forms.CharField(label=_("Model"), max_length=100, required=False, help_text=_("Model kind only."))
    system_prompt = forms.CharField(
        label=_("Instructions for the model"),
        max_length=4000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    typebot = forms.CharField(label=_("Typebot public id"), max_length=100, required=False)
    secret = forms.CharField(
        label=_("Secret"),
        max_length=500,
        required=False,
        widget=forms.PasswordInput,
        help_text=_(
            "HTTP: the signing secret (16+ characters); model: its API key; Typebot: a token. "
            "Never shown again."
        ),
    )
    trigger = forms.ChoiceField(
        label=_("Answers"),
        choices=[
            ("all", _("every message")),
            ("keyword", _("a keyword")),
            ("first_message", _("the first message of a chat")),
        ],
    )
    operator = forms.ChoiceField(
        label=_("Keyword match"),
        choices=[("contains", _("contains")), ("equals", _("equals")), ("regex", _("regular expression"))],
    )
    value = forms.CharField(label=_("Keyword"), max_length=200, required=False)

    def __init__(self, *args, sessions: list[tuple[str, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["session"].choices = sessions
