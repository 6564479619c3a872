"""A hot read compiled once: the ORM builds the statement of a fixed-shape `get` the first time, and
every later call runs that SQL with its new values, converts the row with the same converters and
builds the instance with `Model.from_db`, as a QuerySet would.

Why (docs/decisions/0037): a `Model.objects.get(pk=..., account_id=...)` costs ~0.5 ms of CPU on this
machine, of which the statement's round trip is ~0.09 ms: the rest is building the QuerySet, its Query
and WHERE tree, and compiling them to SQL, the same text each time. The session of a keyed message route
is read so on every send and every inbound event (bench/compiled_reads.py measures both paths).

What it is not: a cache of rows. Every call reads the database; only the statement's text, the order of
its parameters and its converters are kept, per database connection (converters are bound to one).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connections, models, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.sql.compiler import SQLCompiler

M = TypeVar("M", bound=models.Model)


@dataclass(frozen=True)
class _Statement:
    sql: str
    fields: tuple[models.Field, ...]  # the filtered fields, in the order of the statement's parameters
    attnames: tuple[str, ...]  # the selected columns, as Model.from_db takes them
    compiler: SQLCompiler  # for its converters (bound to the connection it was compiled on)
    converters: dict[int, Any]


class CompiledGet(Generic[M]):
    """`CompiledGet(Session, "pk", "account_id").get(pk=..., account_id=...)`: the one row whose fields
    equal those values (exact lookups, ANDed), or None. Meant for a lookup by a unique key."""

    def __init__(self, model: type[M], *names: str) -> None:
        self.model = model
        self.names = names
        self._statements: weakref.WeakKeyDictionary[BaseDatabaseWrapper, _Statement] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def get(self, **values: Any) -> M | None:
        if set(values) != set(self.names):
            raise TypeError(f"{self.model.__name__} is read by {', '.join(self.names)}; got {sorted(values)}")
        if any(value is None for value in values.values()):  # the ORM would compile IS NULL
            raise ValueError(f"{self.model.__name__}: a compiled get compares with values, not None")
        alias = router.db_for_read(self.model)
        connection = connections[alias]
        statement = self._statements.get(connection) or self._compile(connection, alias, values)
        params = [field.get_db_prep_value(values[name], connection) for name, field in self._bound(statement)]
        with connection.cursor() as cursor:
            cursor.execute(statement.sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        if statement.converters:
            row = next(statement.compiler.apply_converters([row], statement.converters))
        return self.model.from_db(alias, statement.attnames, row)

    def _bound(self, statement: _Statement) -> zip:
        return zip(self.names, statement.fields, strict=True)

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
        statement = _Statement(
            sql=sql,
            fields=tuple(self._field(name) for name in self.names),
            attnames=tuple(column.target.attname for column in selected),
            compiler=compiler,
            converters=compiler.get_converters(selected),
        )
        with self._lock:
            self._statements[connection] = statement
        return statement

    def _field(self, name: str) -> models.Field:
        return self.model._meta.pk if name == "pk" else self.model._meta.get_field(name)
