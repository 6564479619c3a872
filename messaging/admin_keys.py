"""The API key forms of the admin: the IP allow-list (accounts.admin_forms) and a pick-list of the
account's sessions instead of raw JSON. Values are checked by the same functions as POST /api/keys
(accounts.services), so both store exactly the same lists. They live here, beside the sessions they
pick, and messaging.admin registers the key admin with them."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from accounts.admin_forms import IpAllowListField
from accounts.models import Account, ApiKey
from accounts.services import allowed_sessions_clean
from core.errors import ValidationFailed
from messaging.models import Session


class SessionPickField(forms.MultipleChoiceField):
    """A key's allowed sessions as checkboxes; stored as the list of session UUIDs."""

    widget = forms.CheckboxSelectMultiple

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)

    def has_changed(self, initial: Any, data: Any) -> bool:
        return {str(value) for value in initial or []} != {str(value) for value in data or []}


def grouped_session_choices(sessions: list[Session]) -> list[tuple[str, list[tuple[str, str]]]]:
    groups: dict[str, list[tuple[str, str]]] = {}
    for session in sessions:
        groups.setdefault(str(session.account), []).append((str(session.pk), str(session)))
    return list(groups.items())


class ApiKeyForm(forms.ModelForm):
    """Changing a key: its account is fixed, so its sessions are the choices."""

    allowed_ips = IpAllowListField(label="Allowed IPs")
    allowed_sessions = SessionPickField(label="Allowed sessions")

    class Meta:
        model = ApiKey
        fields = ["name", "role", "expires_at", "allowed_ips", "allowed_sessions"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["allowed_sessions"]
        account = self._account()
        sessions = Session.objects.select_related("account").order_by("account__name", "name")
        if account is not None:
            field.choices = [(str(s.pk), str(s)) for s in sessions.filter(account=account)]
            field.help_text = f"Sessions of {account} this key may use. None ticked: every session."
        else:
            field.choices = grouped_session_choices(list(sessions))
            field.help_text = (
                "Choose the account above first: only its sessions may be ticked (others are refused). "
                "None ticked: every session of the account."
            )
        known = {value for value, _ in flat_choices(field.choices)}
        stale = [str(value) for value in (self.instance.allowed_sessions or []) if str(value) not in known]
        # A deleted session stays listed (and ticked) so saving the form does not silently drop it.
        field.choices = [*field.choices, *((value, f"{value} (deleted session)") for value in stale)]

    def _account(self) -> Account | None:
        if self.instance.account_id:
            return self.instance.account
        # Issuing: the account may still change in the browser, so a posted form keeps every account's
        # sessions as choices and clean() refuses those of another account with a clear message.
        field, chosen = self.fields.get("account"), self.initial.get("account")
        if field is None or not chosen or self.is_bound:
            return None
        try:
            return field.clean(chosen)
        except ValidationError:
            return None

    def clean_allowed_sessions(self) -> list[str]:
        try:
            return allowed_sessions_clean(self.cleaned_data["allowed_sessions"])
        except ValidationFailed as error:
            raise ValidationError(error.message) from None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        account = cleaned.get("account") or (self.instance.account if self.instance.account_id else None)
        chosen = cleaned.get("allowed_sessions") or []
        if account is not None and chosen:
            own = {str(pk) for pk in Session.objects.filter(account=account).values_list("pk", flat=True)}
            stale = {str(value) for value in self.instance.allowed_sessions or []}
            foreign = [value for value in chosen if value not in own and value not in stale]
            if foreign:
                self.add_error(
                    "allowed_sessions",
                    f"{len(foreign)} ticked session(s) belong to another account than {account}.",
                )
        return cleaned


class ApiKeyIssueForm(ApiKeyForm):
    """Issuing a key: the prefix and secret are generated, never typed in."""

    class Meta(ApiKeyForm.Meta):
        fields = ["account", "name", "role", "expires_at", "allowed_ips", "allowed_sessions"]


def flat_choices(choices: list) -> list[tuple[str, str]]:
    flat: list[tuple[str, str]] = []
    for value, label in choices:
        flat += label if isinstance(label, list) else [(value, label)]
    return flat
