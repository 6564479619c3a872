"""Model fields whose values are encrypted at rest (core.encryption), for any app's secrets.

The database holds a Fernet token; Python code sees the plain value. An empty string stays empty and
None stays NULL (whether a secret is set is not itself secret). Each encryption differs, so these
columns cannot be filtered or indexed on their value.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import models

from core.encryption import decrypt, encrypt


class EncryptedTextField(models.TextField):
    """A string stored encrypted (webhook secrets; later channel access tokens)."""

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> str | None:
        return decrypt(value) if value else value

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        return encrypt(value) if value else value


class EncryptedJSONField(models.TextField):
    """A JSON value (dict, list...) stored encrypted as one token (channel credentials)."""

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> Any:
        return json.loads(decrypt(value)) if value else None

    def to_python(self, value: Any) -> Any:
        return value

    def get_prep_value(self, value: Any) -> str | None:
        return None if value is None else encrypt(json.dumps(value, separators=(",", ":")))

    def value_to_string(self, obj: models.Model) -> Any:
        # As Django's JSONField: the serializers (dumpdata) write the value itself, loaddata reads it back.
        return self.value_from_object(obj)
