"""Admin form fields of accounts: an API key's IP allow-list typed one entry per line instead of raw
JSON, checked by the same function as POST /api/keys (accounts.services). The key form itself, which also
picks the account's sessions, lives with the sessions (messaging.admin_keys)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from accounts.services import allowed_ips_clean
from core.errors import ValidationFailed


class IpAllowListField(forms.CharField):
    """One IP address or CIDR per line (IPv4 or IPv6), cleaned to the stored list of networks."""

    widget = forms.Textarea(attrs={"rows": 4, "cols": 40})

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault(
            "help_text",
            "One IP address or CIDR per line, IPv4 or IPv6 (e.g. 203.0.113.7, 10.0.0.0/8, 2001:db8::/32). "
            "Empty: any address may use the key.",
        )
        super().__init__(required=False, **kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return "\n".join(str(item) for item in value)
        return value

    def clean(self, value: Any) -> list[str]:
        text = super().clean(value)
        networks: list[str] = []
        errors: list[str] = []
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line:
                continue
            try:
                networks += allowed_ips_clean([line])
            except ValidationFailed as error:
                errors.append(f"Line {number}: {error.message.removeprefix('allowed_ips: ')}.")
        if errors:
            raise ValidationError(errors)
        return networks

    def has_changed(self, initial: Any, data: Any) -> bool:
        try:
            return self.clean(data) != list(initial or [])
        except ValidationError:
            return True
