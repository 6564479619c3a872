"""The worker's write of a batch's outcomes: attempts, new states, claims released.

Only deliveries still held by the batch's claim (`claim_token`) are written: one whose lease ran out and was
claimed again belongs to its new holder. On PostgreSQL that is one statement in autocommit (one round trip):
the UPDATE of the held rows from the outcomes (arrays, one per column) returns their ids, and the attempts
of just those rows are inserted in the same statement, so a batch costs one round trip, not one per step
(docs/decisions/0003). Elsewhere (SQLite serialises writers) the statements run one after another in one
transaction.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

from django.db import connection, transaction
from django.db.models import Model

from webhooks.outbox.rows import (
    column,
    cursor,
    fetch,
    in_list,
    insert_many,
    insert_parts,
    qn,
    row_values,
    table,
    to_db,
)
from webhooks.outbox.sql import Outcome, held_statement, record_statement

# The outcome columns, each with the Delivery field whose type it has.
_OUTCOME_FIELDS = (
    ("id", "id"),
    ("status", "status"),
    ("attempts", "attempt_count"),
    ("status_code", "last_status_code"),
    ("error", "last_error"),
    ("delivered_at", "delivered_at"),
    ("dead_at", "dead_at"),
    ("next_at", "next_attempt_at"),
)


def _models():
    from webhooks import models

    return models


def _array(model: type[Model], name: str) -> str:
    """An array parameter's type: a list of NULLs alone would not say it."""
    return "::" + model._meta.get_field(name).db_type(connection) + "[]"


@cache
def _statement() -> str:
    """One text for every batch: each column of the outcomes and of the attempts travels as one array
    parameter, unnested into rows. A VALUES list with a placeholder per value gave a text per batch
    size with hundreds of parameters, which psycopg parses again on every call (it caches statements
    of at most 50 parameters) and PostgreSQL plans again."""
    m = _models()
    d, a = m.Delivery, m.DeliveryAttempt
    t = table(d)
    outcome_arrays = ", ".join(f"%(o_{key})s{_array(d, field)}" for key, field in _OUTCOME_FIELDS)
    outcome_columns = ", ".join(key for key, _ in _OUTCOME_FIELDS)

    def kept(name: str, value: str) -> str:  # a NULL in the outcome leaves the column as it is
        return f"{column(d, name)} = COALESCE(outcome.{value}, {t}.{column(d, name)})"

    _sql, fields, _generated = insert_parts(a, connection.vendor)
    columns = ", ".join(qn(f.column) for f in fields)
    attempt_arrays = ", ".join(f"%(a_{f.column})s{_array(a, f.name)}" for f in fields)
    return (
        f"WITH written AS (UPDATE {t} SET {column(d, 'status')} = outcome.status,"
        f" {column(d, 'attempt_count')} = outcome.attempts,"
        f" {column(d, 'last_status_code')} = outcome.status_code, {column(d, 'last_error')} = outcome.error,"
        f" {column(d, 'claimed_at')} = NULL, {column(d, 'claim_token')} = '',"
        f" {column(d, 'resend_pending')} = %(resend_pending)s, {kept('delivered_at', 'delivered_at')},"
        f" {kept('dead_at', 'dead_at')}, {kept('next_attempt_at', 'next_at')},"
        f" {column(d, 'updated_at')} = %(now)s"
        f" FROM unnest({outcome_arrays}) AS outcome ({outcome_columns})"
        f" WHERE {t}.{column(d, 'id')} = outcome.id AND {t}.{column(d, 'claim_token')} = %(token)s"
        f" RETURNING {t}.{column(d, 'id')} AS id),"
        f" inserted AS (INSERT INTO {table(a)} ({columns}) SELECT attempt.* FROM"
        f" unnest({attempt_arrays}) AS attempt ({columns})"
        f" JOIN written ON attempt.{column(a, 'delivery')} = written.id)"
        " SELECT id FROM written"
    )


def _in_one_statement(
    states: list[tuple[int, Outcome]], attempts: list[Model], *, token: str, now: datetime
) -> set[int]:
    d, a = _models().Delivery, _models().DeliveryAttempt
    params: dict[str, Any] = {
        "token": token,
        "now": to_db(d, "updated_at", now),
        "resend_pending": to_db(d, "resend_pending", False),
    }
    outcome_rows = [_outcome_values(pk, outcome) for pk, outcome in states]
    for index, (key, _field) in enumerate(_OUTCOME_FIELDS):
        params[f"o_{key}"] = [row[index] for row in outcome_rows]
    _sql, fields, _generated = insert_parts(a, connection.vendor)
    attempt_rows = [row_values(attempt, fields) for attempt in attempts]
    for f in fields:
        params[f"a_{f.column}"] = [row[f.column] for row in attempt_rows]
    with cursor(prepare=True) as cur:
        cur.execute(_statement(), params)
        return {row[0] for row in cur.fetchall()}


def _outcome_values(pk: int, outcome: Outcome) -> tuple[Any, ...]:
    """In the order of _OUTCOME_FIELDS."""
    d = _models().Delivery
    return (
        pk,
        outcome.status,
        outcome.attempt_count,
        outcome.last_status_code,
        outcome.last_error,
        to_db(d, "delivered_at", outcome.delivered_at),
        to_db(d, "dead_at", outcome.dead_at),
        to_db(d, "next_attempt_at", outcome.next_attempt_at),
    )


def _one_by_one(
    states: list[tuple[int, Outcome]], attempts: list[Model], *, token: str, now: datetime
) -> set[int]:
    with transaction.atomic():
        placeholders, id_params = in_list("id", [pk for pk, _ in states])
        rows = fetch(held_statement().format(ids=placeholders), {"token": token, **id_params})
        held = {row["id"] for row in rows}
        insert_many([a for a in attempts if a.delivery_id in held])
        written = [(pk, outcome) for pk, outcome in states if pk in held]
        if written:
            rows = [_record_params(pk, outcome, token, now) for pk, outcome in written]
            with cursor(prepare=True) as cur:
                cur.executemany(record_statement(), rows)
    return held


def _record_params(pk: int, outcome: Outcome, token: str, now: datetime) -> dict[str, Any]:
    d = _models().Delivery
    return {
        "status": outcome.status,
        "attempts": outcome.attempt_count,
        "status_code": outcome.last_status_code,
        "error": outcome.last_error,
        "resend_pending": to_db(d, "resend_pending", False),
        "delivered_at": to_db(d, "delivered_at", outcome.delivered_at),
        "dead_at": to_db(d, "dead_at", outcome.dead_at),
        "next_at": to_db(d, "next_attempt_at", outcome.next_attempt_at),
        "now": to_db(d, "updated_at", now),
        "id": pk,
        "token": token,
    }


def record_batch(
    states: list[tuple[int, Outcome]], attempts: list[Model], *, token: str, now: datetime
) -> set[int]:
    """Write each delivery's new state and its attempt (`attempts`: DeliveryAttempt rows, at most one
    per delivery), releasing the claim, for the deliveries `token` still holds; their ids."""
    if not states:
        return set()
    if connection.vendor == "postgresql":
        return _in_one_statement(states, attempts, token=token, now=now)
    return _one_by_one(states, attempts, token=token, now=now)
