"""Serializer fields every interface shares."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StrictBooleanField(serializers.BooleanField):
    """A JSON boolean only: "true", 1 or "yes" are refused rather than guessed."""

    default_error_messages = {"invalid": "must be true or false (a JSON boolean)."}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data
