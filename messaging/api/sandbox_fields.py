"""The fields of the sandbox's inbound bodies (messaging.api.sandbox_inbound).

They are strict on JSON types (a number is no string, `"yes"` is no boolean) and keep strings as given:
the engine stores what "WhatsApp" would deliver, so nothing is trimmed or coerced.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import SkipField, empty

from messaging.addressing import normalize_group, normalize_jid, normalize_number


class Text(serializers.CharField):
    """A JSON string kept exactly as given (a number is refused, not turned into text)."""

    default_error_messages = {"invalid": "Not a valid string."}

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


def optional_text(max_length: int) -> Text:
    return Text(required=False, default="", allow_blank=True, max_length=max_length)


class Flag(serializers.BooleanField):
    """A JSON `true` or `false` only: `"yes"` or `1` are refused rather than read as true."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class Number(serializers.FloatField):
    """A JSON number (not a numeric string, not a boolean)."""

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class OmittedWhenEmpty:
    """An optional field whose empty value (absent, null, `""`, any falsy JSON value) means not given:
    the key is left out of the data."""

    def run_validation(self, data: Any = empty) -> Any:
        if data is empty or not data:
            raise SkipField
        return super().run_validation(data)  # type: ignore[misc]


class OptionalText(OmittedWhenEmpty, Text):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)


@extend_schema_field(OpenApiTypes.STR)
class Jid(serializers.Field):
    """A number with country code or a JID, returned as a full JID (messaging.addressing)."""

    default_error_messages = {
        "required": "required (a number with country code or a JID).",
        "null": "required (a number with country code or a JID).",
        "invalid": "required (a number with country code or a JID).",
    }

    def __init__(self, *, allow_group: bool = True, **kwargs: Any) -> None:
        self.allow_group = allow_group
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str) or not data:
            self.fail("invalid")
        # A list's items are bound without a name: they answer for the list.
        field = self.field_name or getattr(self.parent, "field_name", "")
        return normalize_jid(data, allow_group=self.allow_group, field=field)

    def to_representation(self, value: str) -> str:
        return value


class OptionalJid(OmittedWhenEmpty, Jid):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)


class GroupJid(Text):
    def __init__(self) -> None:
        super().__init__(max_length=100)

    def to_internal_value(self, data: Any) -> str:
        return normalize_group(super().to_internal_value(data), field=self.field_name)


class Named(serializers.ChoiceField):
    """The name that chose the serializer (`event`, a message's `type`): one of `names`. The schema
    shows it as a string naming them, not as an enum: each variant of the `oneOf` would otherwise add
    an enum component of its own, and the discriminator's mapping already lists the names."""

    def __init__(self, *names: str, **kwargs: Any) -> None:
        super().__init__(choices=names, **kwargs)
        schema: dict[str, Any] = {"type": "string", "description": " or ".join(f"`{n}`" for n in names)}
        if "default" in kwargs:
            schema["default"] = kwargs["default"]
        extend_schema_field(schema)(self)


@extend_schema_field(OpenApiTypes.STR)
class ContactNumber(serializers.Field):
    """A contact card's number, digits with country code (a JSON number is read as its digits)."""

    def to_internal_value(self, data: Any) -> str:
        return normalize_number(str(data), field="contacts.phoneNumber")

    def to_representation(self, value: str) -> str:
        return value


class InboundSerializer(serializers.Serializer):
    """An event "WhatsApp" delivers to the session."""

    # A field named by a Python keyword (`from`) is declared with a trailing `_`.

    def get_fields(self) -> dict[str, serializers.Field]:
        return {name.removesuffix("_"): field for name, field in super().get_fields().items()}
