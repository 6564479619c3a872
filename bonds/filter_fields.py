"""The form fields and filters behind the list's query parameters (bonds.filters.BondFilterSet). Each
reads its raw value (the last one given, or every item of a repeated, comma-separated list) and never
fails: a value that does not parse is None, no filter (an odd value is ignored, never an error)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import date
from typing import Any

import django_filters
from django import forms
from drf_spectacular.utils import extend_schema_field

from bonds.ratings import national_notch

# An amount is a plain decimal with a point (BRL), at most 15 digits before it. ASCII digits only:
# `\d` (and float()) also take "٣" or "²".
AMOUNT_PATTERN = re.compile(r"[0-9]{1,15}(\.[0-9]{1,8})?")
ISO_DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _items(values: Iterable[str]) -> list[str]:
    """Comma-separated lists (form style); repeated parameters are accepted too."""
    return [item.strip() for value in values for item in str(value).split(",") if item.strip()]


class ItemsField(forms.Field):
    """Every item of a repeated, comma-separated parameter; never an error."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> tuple[str, ...]:
        return tuple(_items(value or ()))


class FlagField(forms.Field):
    """`1` true, `0` false (the last value, spaces aside); anything else is no choice, never an error."""

    def to_python(self, value: Any) -> bool | None:
        return {"1": True, "0": False}.get(value.strip()) if isinstance(value, str) else None


class ItemsFilter(django_filters.Filter):
    """A comma-separated list of codes, documented as the string it is."""

    field_class = ItemsField

    def __init__(self, *, description: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        extend_schema_field({"type": "string", "description": description})(self)


class FlagFilter(django_filters.Filter):
    field_class = FlagField

    def __init__(self, *, description: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        extend_schema_field({"type": "integer", "enum": [0, 1], "description": description})(self)


def stripped_text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) else None


class IsoDateField(forms.Field):
    """`YYYY-MM-DD` (a real date); anything else is no bound, never an error."""

    def to_python(self, value: Any) -> date | None:
        text = stripped_text(value)
        if text is None or not ISO_DATE_PATTERN.fullmatch(text):
            return None
        try:
            return date.fromisoformat(text)
        except ValueError:
            return None


class AmountField(forms.Field):
    """A positive decimal with a point (`10000`, `2500.50`); anything else is no amount."""

    def to_python(self, value: Any) -> float | None:
        text = stripped_text(value)
        if text is None or not AMOUNT_PATTERN.fullmatch(text):
            return None
        amount = float(text)
        return amount if amount > 0 and math.isfinite(amount) else None


class RatingField(forms.Field):
    """A national-scale notch (`brAA`, `AA(bra)`, `AA.br`, `AA`; any case) as its bare notch (`AA`)."""

    def to_python(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return None
        text = value.strip()
        # A `+` sent unencoded arrives as a space ("brAA "): the `+` was meant, as with `index`.
        if text and value.rstrip() != value and text[-1] not in "+-":
            text += "+"
        return national_notch(text)


class ValueFilter(django_filters.Filter):
    """One value (the last one given), documented by `schema`; an odd value is no filter."""

    def __init__(self, *, field_class: type[forms.Field], schema: dict[str, Any], **kwargs: Any) -> None:
        self.field_class = field_class
        super().__init__(**kwargs)
        extend_schema_field(schema)(self)
