"""Hot statements compiled once: the ORM builds the statement of a fixed-shape `get` (or the upsert of
one object) the first time, and every later call runs that SQL with its new values, prepared by the same
fields' methods, and converts what comes back with the same converters, as a QuerySet would.

Why (docs/decisions/0037): a `Model.objects.get(pk=..., account_id=...)` costs ~0.5 ms of CPU on this
machine, of which the statement's round trip is ~0.09 ms: the rest is building the QuerySet, its Query
and WHERE tree, and compiling them to SQL, the same text each time. The session of a keyed message route
is read so on every send and every inbound event, and a send's message row is written by a one-object
`bulk_create(update_conflicts=True)` that costs ~0.5 ms for a ~0.12 ms statement
(bench/compiled_statements.py measures both paths).

What it is not: a cache of rows. Every call runs its statement; only the statement's text, the order of
its parameters and its converters are kept, per database connection (converters are bound to one).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connections, models, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import AutoField
from django.db.models.sql.compiler import SQLCompiler

M = TypeVar("M", bound=models.Model)

# Django's form of a row's converters (SQLCompiler.get_converters): position → (converters, expression).
Converters = dict[int, tuple[list[Any], Any]]


def _converted(row: Sequence[Any], converters: Converters, connection: BaseDatabaseWrapper) -> list[Any]:
    """The row as the ORM reads it: each column through its backend's and its field's converters."""
    values = list(row)
    for position, (functions, expression) in converters.items():
        for function in functions:
            values[position] = function(values[position], expression, connection)
    return values


@dataclass(frozen=True)
class _Statement:
    sql: str
    attnames: tuple[str, ...]  # the columns the statement reads back, as Model.from_db takes them
    converters: Converters  # bound to the connection it was compiled on
    # A get's row is converted by its compiler, as a QuerySet's is; an upsert's returned key by _converted.
    compiler: SQLCompiler | None = None


class _PerConnection(Generic[M]):
    """What both compiled statements keep: one statement per database connection (each thread has its
    own; a `WeakKeyDictionary`, nothing set on Django's objects)."""

    def __init__(self, model: type[M]) -> None:
        self.model = model
        self._statements: weakref.WeakKeyDictionary[BaseDatabaseWrapper, _Statement] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def kept(self, alias: str = "default") -> bool:
        """Whether this thread's connection to `alias` has the statement kept (the next call runs it)."""
        return connections[alias] in self._statements

    def _keep(self, connection: BaseDatabaseWrapper, statement: _Statement) -> _Statement:
        with self._lock:
            self._statements[connection] = statement
        return statement


class CompiledGet(_PerConnection[M]):
    """`CompiledGet(Session, "pk", "account_id").get(pk=..., account_id=...)`: the one row whose fields
    equal those values (exact lookups, ANDed), or None. Meant for a lookup by a unique key."""

    def __init__(self, model: type[M], *names: str) -> None:
        super().__init__(model)
        self.names = names
        self._name_set = frozenset(names)
        # The filtered fields, in the order of the statement's parameters (one filter() per name).
        self.fields = tuple(model._meta.pk if name == "pk" else model._meta.get_field(name) for name in names)

    def get(self, **values: Any) -> M | None:
        if values.keys() != self._name_set:
            raise TypeError(f"{self.model.__name__} is read by {', '.join(self.names)}; got {sorted(values)}")
        if any(value is None for value in values.values()):  # the ORM would compile IS NULL
            raise ValueError(f"{self.model.__name__}: a compiled get compares with values, not None")
        alias = router.db_for_read(self.model)
        connection = connections[alias]
        statement = self._statements.get(connection) or self._compile(connection, alias, values)
        params = [
            field.get_db_prep_value(values[name], connection)
            for name, field in zip(self.names, self.fields, strict=True)
        ]
        with connection.cursor() as cursor:
            cursor.execute(statement.sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        if statement.converters:
            row = next(statement.compiler.apply_converters([row], statement.converters))
        return self.model.from_db(alias, statement.attnames, row)

    def _compile(self, connection: BaseDatabaseWrapper, alias: str, values: dict[str, Any]) -> _Statement:
        """Let the ORM build the statement once, with this call's values: one filter() per name, so the
        parameters come in the names' order."""
        queryset = self.model._default_manager.using(alias)
        for name in self.names:
            queryset = queryset.filter(**{name: values[name]})
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        if len(params) != len(self.names):  # a lookup that is not one plain parameter: not for this
            raise ValueError(f"{self.model.__name__}: {self.names} do not compile to one parameter each")
        selected = [column for column, _sql, _alias in compiler.select]
        return self._keep(
            connection,
            _Statement(
                sql=sql,
                attnames=tuple(column.target.attname for column in selected),
                converters=compiler.get_converters(selected),
                compiler=compiler,
            ),
        )


class CompiledUpsert(_PerConnection[M]):
    """`CompiledUpsert(Message, unique_fields=[...], update_fields=[...]).save(obj)`: what
    `Model.objects.bulk_create([obj], update_conflicts=True, unique_fields=..., update_fields=...)` does
    for one new object (its key left to the database), with the statement Django wrote the first time.

    The first call on a connection is Django's own `bulk_create`, its one statement captured; a call
    whose object holds an expression (a `DatabaseDefault`, an `F()`) is Django's too, as is a database
    that cannot return the key. The object must name its related rows by saved objects or ids."""

    def __init__(self, model: type[M], *, unique_fields: list[str], update_fields: list[str]) -> None:
        super().__init__(model)
        self.options = {
            "update_conflicts": True,
            "unique_fields": unique_fields,
            "update_fields": update_fields,
        }
        # The inserted columns, in the statement's order (bulk_create's, for an object without a key).
        self.fields = tuple(
            f for f in model._meta.concrete_fields if not f.generated and not isinstance(f, AutoField)
        )

    def save(self, obj: M) -> M:
        alias = router.db_for_write(self.model)
        connection = connections[alias]
        statement = self._statements.get(connection)
        if statement is None:
            return self._orm(obj, connection, alias)
        values = [field.pre_save(obj, True) for field in self.fields]
        if any(hasattr(value, "resolve_expression") for value in values):
            return self._orm(obj, connection, alias)
        params = [
            field.get_db_prep_save(value, connection)
            for field, value in zip(self.fields, values, strict=True)
        ]
        with connection.cursor() as cursor:
            cursor.execute(statement.sql, params)
            row = cursor.fetchone()
        for attname, value in zip(
            statement.attnames, _converted(row, statement.converters, connection), strict=True
        ):
            setattr(obj, attname, value)
        obj._state.adding = False
        obj._state.db = alias
        return obj

    def _orm(self, obj: M, connection: BaseDatabaseWrapper, alias: str) -> M:
        """Django's bulk_create, its statement kept when it is the one this class can run again."""
        written: list[tuple[str, Any]] = []

        def capture(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            written.append((sql, params))
            return execute(sql, params, many, context)

        with connection.execute_wrapper(capture):
            self.model._default_manager.using(alias).bulk_create([obj], **self.options)
        if connection in self._statements or not connection.features.can_return_rows_from_bulk_insert:
            return obj
        inserts = [(sql, params) for sql, params in written if sql.lstrip().upper().startswith("INSERT")]
        if len(inserts) == 1 and len(inserts[0][1]) == len(self.fields) and "RETURNING" in inserts[0][0]:
            self._keep(connection, self._returning(connection, inserts[0][0]))
        return obj

    def _returning(self, connection: BaseDatabaseWrapper, sql: str) -> _Statement:
        """The captured statement with what it returns (the database's key) and how to read it back."""
        table = self.model._meta.db_table
        fields = self.model._meta.db_returning_fields
        converters: Converters = {}
        for position, field in enumerate(fields):
            column = field.get_col(table)
            functions = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
            if functions:
                converters[position] = (functions, column)
        return _Statement(sql=sql, attnames=tuple(f.attname for f in fields), converters=converters)
