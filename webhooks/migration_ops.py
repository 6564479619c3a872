"""Migration operations for the outbox's busy tables: index changes that never hold their writes.

On PostgreSQL, indexes are built and dropped CONCURRENTLY (the migration must then be non-atomic): a
plain CREATE INDEX holds emit() and the workers' writes for as long as the build takes, and a plain
DROP INDEX waits for, then blocks, every statement on the table. Elsewhere (SQLite) they are the plain
operations.
"""

from __future__ import annotations

from django.contrib.postgres.operations import AddIndexConcurrently, RemoveIndexConcurrently
from django.db import migrations


def _concurrently(schema_editor) -> bool:
    """Whether the database builds and drops indexes without holding writes (PostgreSQL's CONCURRENTLY)."""
    return schema_editor.connection.vendor == "postgresql"


class _ConcurrentlyOnPostgres:
    """The concurrent operation on PostgreSQL; `plain`, its ordinary counterpart, elsewhere."""

    plain: type[migrations.operations.base.Operation]

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if _concurrently(schema_editor):
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return self.plain.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if _concurrently(schema_editor):
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return self.plain.database_backwards(self, app_label, schema_editor, from_state, to_state)


class AddIndexConcurrentlyOnPostgres(_ConcurrentlyOnPostgres, AddIndexConcurrently):
    """CREATE INDEX CONCURRENTLY on PostgreSQL; a plain AddIndex on other databases."""

    plain = migrations.AddIndex


class RemoveIndexConcurrentlyOnPostgres(_ConcurrentlyOnPostgres, RemoveIndexConcurrently):
    """DROP INDEX CONCURRENTLY on PostgreSQL; a plain RemoveIndex on other databases."""

    plain = migrations.RemoveIndex


def default_index_name(schema_editor, table: str, column: str, suffix: str = "") -> str:
    """The name Django gave the index it adds by default for a foreign key (suffix "") or, on
    PostgreSQL, the text-pattern twin of a text column's index (suffix "_like")."""
    return schema_editor._create_index_name(table, [column], suffix=suffix)


def drop_index(schema_editor, name: str) -> None:
    concurrently = " CONCURRENTLY" if _concurrently(schema_editor) else ""
    schema_editor.execute(f"DROP INDEX{concurrently} IF EXISTS {schema_editor.quote_name(name)}")


def create_index(schema_editor, name: str, table: str, column: str, *, pattern: bool = False) -> None:
    opclass = " varchar_pattern_ops" if pattern else ""
    schema_editor.execute(
        f"CREATE INDEX {schema_editor.quote_name(name)} ON {schema_editor.quote_name(table)}"
        f" ({schema_editor.quote_name(column)}{opclass})"
    )
