"""Lookups of our own, registered on the fields that need them (by the models that declare those)."""

from __future__ import annotations

from typing import Any

from django.db.models import Lookup


class ConstantIn(Lookup):
    """`status__constant_in=("pending", "failed")`: IN with the values written into the statement (plain
    names only). A partial index on the column is then usable on SQLite too, whose planner matches the
    index's condition against the query's text, which a bound parameter never implies."""

    lookup_name = "constant_in"
    prepare_rhs = False  # the names, not the field's text of the whole tuple

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        lhs, params = self.process_lhs(compiler, connection)
        values = [str(value) for value in self.rhs]
        if not values or not all(value.isidentifier() for value in values):
            raise ValueError(f"constant_in takes plain names: {self.rhs!r}")
        return f"{lhs} IN ({', '.join(repr(value) for value in values)})", list(params)
