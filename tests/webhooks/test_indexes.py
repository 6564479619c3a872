"""The outbox's tables keep only the indexes their statements need (webhooks/migrations/0011): every
row version of a delivery goes into each full index, so a redundant one costs every emit, claim and
record."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

TABLES = ("webhooks_event", "webhooks_delivery", "webhooks_deliveryattempt")


def indexes(table: str) -> dict[str, tuple[tuple[str, ...], bool]]:
    """{index name: (its columns, whether it is partial)}, primary keys left out."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
        if connection.vendor == "postgresql":
            cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s", [table])
        else:
            cursor.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = %s", [table]
            )
        partial = {name: " WHERE " in (definition or "").upper() for name, definition in cursor.fetchall()}
    return {
        name: (tuple(found["columns"]), partial.get(name, False))
        for name, found in constraints.items()
        if found["index"] and not found["primary_key"]
    }


@pytest.mark.parametrize("table", TABLES)
def test_no_full_index_starts_another_full_index(table):
    full = {name: columns for name, (columns, is_partial) in indexes(table).items() if not is_partial}
    redundant = [
        (name, other)
        for name, columns in full.items()
        for other, longer in full.items()
        if name != other and len(columns) < len(longer) and longer[: len(columns)] == columns
    ]
    assert redundant == []


@pytest.mark.parametrize("table", TABLES)
def test_no_text_pattern_twin_is_kept(table):
    assert [name for name in indexes(table) if name.endswith("_like")] == []


def test_the_staff_user_keys_and_dead_letters_are_indexed_only_where_set():
    found = {**indexes("webhooks_delivery"), **indexes("webhooks_deliveryattempt")}
    assert found["delivery_resent_by"] == (("resend_requested_by_id",), True)
    assert found["attempt_requested_by"] == (("requested_by_id",), True)
    assert found["delivery_dead"] == (("dead_at",), True)
    assert [name for name, (columns, _) in found.items() if columns == ("status", "dead_at")] == []
