"""Custom headers of a registered webhook: extra request headers sent with every delivery.

Customers use them for what their receiver or its gateway asks (an `Authorization` of their own, a
routing key), so values are treated as secrets: encrypted at rest (`Webhook.headers`) and shown in full
only to admin keys. Names that would change how the request is framed, or pass for Ponte's own
signature and id headers, are refused.
"""

from __future__ import annotations

from typing import Any

from core.errors import ValidationFailed
from net.headers import is_name, is_value

MAX_HEADERS = 10
MAX_VALUE_CHARS = 1000
RESERVED_NAMES = ("host", "content-length", "content-type", "transfer-encoding", "connection")
RESERVED_PREFIXES = ("webhook-", "x-webhook-", "x-ponte-")


def is_reserved(name: str) -> bool:
    lowered = name.lower()
    return lowered in RESERVED_NAMES or lowered.startswith(RESERVED_PREFIXES)


def headers_clean(value: Any, *, field: str = "headers") -> dict[str, str]:
    """Validate custom headers as given to the API: an object of at most 10 name: value strings.

    Errors name the field and the offending header. Names keep the case they were given; two names
    that differ only in case are one header and refused as a duplicate.
    """
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationFailed(f"{field}: must be an object of header names to values")
    if len(value) > MAX_HEADERS:
        raise ValidationFailed(f"{field}: at most {MAX_HEADERS} headers (got {len(value)})")
    reserved = sorted(name for name in value if isinstance(name, str) and is_reserved(name))
    if reserved:
        raise ValidationFailed(
            f"{field}: reserved header names refused: {', '.join(reserved)} (Host, Content-Length, "
            "Content-Type, Transfer-Encoding, Connection, webhook-*, x-webhook-* and x-ponte-* are Ponte's)"
        )
    cleaned: dict[str, str] = {}
    seen: set[str] = set()
    for name, text in value.items():
        _check_one(field, name, text)
        if name.lower() in seen:
            raise ValidationFailed(f"{field}: {name!r} is given twice (names are case-insensitive)")
        seen.add(name.lower())
        cleaned[name] = text
    return cleaned


def _check_one(field: str, name: Any, text: Any) -> None:
    if not is_name(name):
        raise ValidationFailed(
            f"{field}: {name!r} is not a valid header name (letters, digits and !#$%&'*+-.^_`|~)"
        )
    if not isinstance(text, str):
        raise ValidationFailed(f"{field}.{name}: the value must be a string")
    if len(text) > MAX_VALUE_CHARS:
        raise ValidationFailed(f"{field}.{name}: at most {MAX_VALUE_CHARS} characters")
    if not is_value(text):  # the whole string: no control character anywhere (net.headers)
        raise ValidationFailed(
            f"{field}.{name}: only printable ASCII characters (no line breaks or other control characters)"
        )


def header_names(headers: dict[str, str] | None) -> list[str]:
    """The names a record shows every role (the values only admin keys see: see the serializers)."""
    return list(headers or {})
