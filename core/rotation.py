"""Re-encrypting every encrypted column under the first of PONTE_SECRET_KEYS (key rotation).

Each value is decrypted with whichever key opens it and written back encrypted with the first key, a
batch per transaction, so the command can be stopped and run again. Once it reports nothing left under
an older key, that key can leave PONTE_SECRET_KEYS.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.apps import apps
from django.db import connection, models, transaction

from core.encryption import encrypted_under_first_key
from core.fields import EncryptedJSONField, EncryptedTextField

BATCH = 500


@dataclass
class RotationCount:
    label: str
    rewritten: int = 0
    current: int = 0


def encrypted_columns() -> Iterator[tuple[type[models.Model], models.Field]]:
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if isinstance(field, EncryptedTextField | EncryptedJSONField):
                yield model, field


def _raw_values(model: type[models.Model], field: models.Field, after: object) -> list[tuple]:
    """(pk, stored token) of the next batch, read without decrypting."""
    table, pk = connection.ops.quote_name(model._meta.db_table), model._meta.pk
    column, pk_column = connection.ops.quote_name(field.column), connection.ops.quote_name(pk.column)
    condition = f"{column} IS NOT NULL AND {column} <> ''"
    if after is not None:
        condition += f" AND {pk_column} > %s"
    sql = f"SELECT {pk_column}, {column} FROM {table} WHERE {condition} ORDER BY {pk_column} LIMIT {BATCH}"  # noqa: S608 (names from model metadata)
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk.get_db_prep_value(after, connection)] if after is not None else [])
        return cursor.fetchall()


def rotate_all() -> list[RotationCount]:
    """Re-encrypt under the first key every value that is not already; return counts per column."""
    counts = []
    for model, field in encrypted_columns():
        count = RotationCount(f"{model._meta.label}.{field.name}")
        after = None
        while rows := _raw_values(model, field, after):
            with transaction.atomic():
                for pk, token in rows:
                    if encrypted_under_first_key(token):
                        count.current += 1
                        continue
                    # Read through the field (decrypts with any key), write through it (first key).
                    value = model._default_manager.filter(pk=pk).values_list(field.attname, flat=True).get()
                    model._default_manager.filter(pk=pk).update(**{field.attname: value})
                    count.rewritten += 1
            after = model._meta.pk.to_python(rows[-1][0])
        counts.append(count)
    return counts
