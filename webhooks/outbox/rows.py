"""Rows written and read through a cursor, typed by the models' own fields.

The outbox's hot statements (webhooks.outbox.sql) skip the ORM's query building but not its types: table and
column names come from the models' `_meta`, values are converted by the fields themselves (`pre_save`,
`get_db_prep_save`, the read converters), so the rows are the ORM's own. Statements bind named
parameters (`%(name)s`, given a dict) and rows are read by column name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.utils import CursorWrapper
from django.db.models import Field, Model


@cache
def _preparing_cursor_class() -> type:
    """psycopg's server-binding cursor whose statements are prepared on their first run: PostgreSQL
    then parses and plans each hot statement once per connection, not once per event (planning is a
    large share of the database's work for emit(), docs/decisions/0001)."""
    from django.db.backends.postgresql.base import ServerBindingCursor

    class PreparingCursor(ServerBindingCursor):
        def execute(self, query, params=None, *, prepare=None, binary=None):
            return super().execute(query, params, prepare=True if prepare is None else prepare, binary=binary)

    return PreparingCursor


@contextmanager
def cursor(*, prepare: bool = False) -> Iterator[CursorWrapper]:
    """A cursor for the outbox's statements. `prepare`: a statement of fixed text run for every event,
    prepared on PostgreSQL (unless PONTE_DB_PREPARE is off, as behind a pooler in transaction mode that
    cannot keep prepared statements). Either way it goes through Django's cursor wrapper (execute
    wrappers, the debug log, assertNumQueries)."""
    if not prepare or connection.vendor != "postgresql" or not settings.PONTE_DB_PREPARE:
        with connection.cursor() as wrapper:
            yield wrapper
        return
    connection.ensure_connection()
    with connection._prepare_cursor(_preparing_cursor_class()(connection.connection)) as wrapper:
        yield wrapper


def qn(name: str) -> str:
    return connection.ops.quote_name(name)


def table(model: type[Model]) -> str:
    return qn(model._meta.db_table)


def column(model: type[Model], name: str) -> str:
    return qn(model._meta.get_field(name).column)


def to_db(model: type[Model], name: str, value: Any) -> Any:
    """A value as the database wants it for a comparison with field `name` (UUIDs, datetimes…)."""
    return model._meta.get_field(name).get_db_prep_value(value, connections[DEFAULT_DB_ALIAS])


@cache
def _converters(model: type[Model], name: str, vendor: str) -> tuple[Field, Any, list[Callable]]:
    field = model._meta.get_field(name)
    expression = field.get_col(model._meta.db_table)
    converters = connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
    return field, expression, converters


def from_db(model: type[Model], name: str, value: Any) -> Any:
    """A value read from column `name` as the ORM would give it (JSON parsed, datetimes aware…)."""
    db = connections[DEFAULT_DB_ALIAS]
    _field, expression, converters = _converters(model, name, db.vendor)
    for converter in converters:
        value = converter(value, expression, db)
    return value


@cache
def insert_parts(model: type[Model], vendor: str) -> tuple[str, list[Field], Field | None]:
    """INSERT text for every local column but a database-generated key (the caller may return it)."""
    meta = model._meta
    generated = meta.pk if meta.pk.db_returning else None
    fields = [f for f in meta.local_concrete_fields if f is not generated]
    names = ", ".join(qn(f.column) for f in fields)
    placeholders = ", ".join(f"%({f.column})s" for f in fields)
    return f"INSERT INTO {table(model)} ({names}) VALUES ({placeholders})", fields, generated


def row_values(obj: Model, fields: list[Field]) -> dict[str, Any]:
    # The thread's connection itself: through the `connection` proxy every attribute the fields read
    # is a thread-local lookup (a third of this function's time).
    db = connections[DEFAULT_DB_ALIAS]
    return {f.column: f.get_db_prep_save(f.pre_save(obj, True), db) for f in fields}


def insert(obj: Model) -> None:
    """Write one new model instance (its constructor filled the defaults) and set its generated key.

    As `save()` on a new row would, without its signals (the outbox models have none)."""
    sql, fields, generated = insert_parts(type(obj), connection.vendor)
    if generated is not None:
        sql += f" RETURNING {qn(generated.column)}"
    with cursor(prepare=True) as cur:
        cur.execute(sql, row_values(obj, fields))
        if generated is not None:
            setattr(obj, generated.attname, cur.fetchone()[0])
    obj._state.adding = False
    obj._state.db = connection.alias


def insert_many(objs: Sequence[Model]) -> None:
    """`insert` for several instances of one model whose keys are not needed afterwards."""
    if not objs:
        return
    sql, fields, _generated = insert_parts(type(objs[0]), connection.vendor)
    with cursor(prepare=True) as cur:
        cur.executemany(sql, [row_values(obj, fields) for obj in objs])


def insert_with_children(parent: Model, children: Sequence[Model], *, unique: str) -> None:
    """Write a new instance whose key the caller set and new instances of one other model in one round
    trip (PostgreSQL: a data-modifying WITH, multi-row VALUES, RETURNING the generated keys matched by
    the children's client-set `unique` field); elsewhere one statement each. Sets the children's keys."""
    if not children or connection.vendor != "postgresql":
        insert(parent)
        for child in children:
            insert(child)
        return
    statement, params = insert_with_children_statement(parent, children, unique=unique)
    with cursor(prepare=True) as cur:  # one text per number of children: a handful
        cur.execute(statement, params)
        keys = {value: key for key, value in cur.fetchall()}
    finish_inserted(parent, children, keys, unique=unique)


def insert_with_children_statement(
    parent: Model,
    children: Sequence[Model],
    *,
    unique: str,
    before: str = "",
    computed: Mapping[str, str] | None = None,
    returning: str = "",
) -> tuple[str, dict[str, Any]]:
    """insert_with_children's statement (PostgreSQL) and its parameters. `before`: a WITH query put
    first (`name AS (...)`); `computed`: parent columns given as SQL expressions (of `before`'s
    results) instead of parameters; `returning`: one more expression to return. The rows returned are
    (child key, child `unique`, `returning`) — or, without children, (`returning`,)."""
    parent_sql, parent_fields, parent_generated = insert_parts(type(parent), connection.vendor)
    if parent_generated is not None:
        raise ValueError("the parent's key must be set by the caller")
    computed = computed or {}
    values = row_values(parent, parent_fields)
    params = {f"p_{key}": value for key, value in values.items() if key not in computed}
    parent_sql = parent_sql.replace("%(", "%(p_")
    for name, expression in computed.items():
        parent_sql = parent_sql.replace(f"%(p_{name})s", expression, 1)
    extra = f", {returning}" if returning else ""
    if not children:
        head = f"WITH {before} " if before else ""
        return f"{head}{parent_sql} RETURNING {returning or '1'}", params
    child_sql, child_fields, generated = insert_parts(type(children[0]), connection.vendor)
    if generated is None:
        raise ValueError("the children's keys must be generated")
    rows = []
    for n, child in enumerate(children):
        row = row_values(child, child_fields)
        params.update({f"c{n}_{key}": value for key, value in row.items()})
        rows.append("(" + ", ".join(f"%(c{n}_{f.column})s" for f in child_fields) + ")")
    head, _values = child_sql.split(" VALUES ", 1)
    unique_column = qn(type(children[0])._meta.get_field(unique).column)
    first = f"{before}, " if before else ""
    statement = (
        f"WITH {first}parent AS ({parent_sql}) "
        f"{head} VALUES {', '.join(rows)} RETURNING {qn(generated.column)}, {unique_column}{extra}"
    )
    return statement, params


def finish_inserted(
    parent: Model, children: Sequence[Model], keys: Mapping[Any, Any], *, unique: str
) -> None:
    """Mark instances written by insert_with_children_statement as saved; set the children's keys from
    `keys` ({unique value: key})."""
    for obj in (parent, *children):
        obj._state.adding = False
        obj._state.db = connection.alias
    for child in children:
        setattr(child, type(child)._meta.pk.attname, keys[getattr(child, unique)])


def fetch(sql: str, params: Mapping[str, Any], *, prepare: bool = False) -> list[dict[str, Any]]:
    """Run one statement with named parameters; its rows as {column name: value}."""
    with cursor(prepare=prepare) as cur:
        cur.execute(sql, params)
        names = [column[0] for column in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def execute(sql: str, params: Mapping[str, Any], *, prepare: bool = False) -> int:
    """Run one statement with named parameters; how many rows it touched."""
    with cursor(prepare=prepare) as cur:
        cur.execute(sql, params)
        return cur.rowcount


def literal(value: str) -> str:
    """A constant of the code (a status name) written into a statement: a partial index's condition is
    matched against the statement's text, and SQLite cannot match a bound parameter, so a status passed
    as one made it scan the whole table instead of the index of waiting rows."""
    if not value.isidentifier():
        raise ValueError(f"not a plain name: {value!r}")
    return f"'{value}'"


def in_list(name: str, values: Sequence[Any]) -> tuple[str, dict[str, Any]]:
    """`IN (...)` placeholders for `values` and their parameters, named `name_0`, `name_1`…"""
    params = {f"{name}_{n}": value for n, value in enumerate(values)}
    return ", ".join(f"%({key})s" for key in params), params
