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
from django.db.models import DateTimeField, F, Model, Value
from django.db.models.functions import Coalesce

from webhooks.outbox.rows import (
    column,
    cursor,
    fetch,
    from_db,
    in_list,
    insert_many,
    insert_parts,
    literal,
    qn,
    row_values,
    table,
    to_db,
)
from webhooks.outbox.sql import Outcome, held_statement, record_statement

# A registered webhook's failure count after a batch: (id, failing since, failed attempts in a row).
HookCount = tuple[str, datetime | None, int]

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
        f" RETURNING {t}.{column(d, 'id')} AS id, {t}.{column(d, 'webhook')} AS webhook,"
        f" {t}.{column(d, 'status')} AS status),"
        f" inserted AS (INSERT INTO {table(a)} ({columns}) SELECT attempt.* FROM"
        f" unnest({attempt_arrays}) AS attempt ({columns})"
        f" JOIN written ON attempt.{column(a, 'delivery')} = written.id),"
        f" {_webhooks_counted()}"
        f" SELECT id, NULL{_cast(m.Webhook, 'id')} AS hook, NULL{_cast(m.Webhook, 'failing_since')} AS since,"
        f" NULL{_cast(m.Webhook, 'failed_attempts')} AS fails FROM written"
        " UNION ALL SELECT NULL, id, failing_since, failed_attempts FROM hooks"
    )


def _cast(model: type[Model], name: str) -> str:
    return "::" + model._meta.get_field(name).db_type(connection)


def _webhooks_counted() -> str:
    """The CTEs that keep each registered webhook's failure count (webhooks.outbox.disable) with the outcomes:
    a delivered attempt in the batch resets it, else the batch's failed attempts are added and
    `failing_since` is set if it was not. Instance deliveries have no webhook and are left out."""
    m = _models()
    d, h = m.Delivery, m.Webhook
    delivered = literal(d.Status.DELIVERED)
    fails, since = column(h, "failed_attempts"), column(h, "failing_since")
    return (
        "counted AS (SELECT webhook AS id, bool_or(status = " + delivered + ") AS ok, count(*) AS failed"
        " FROM written WHERE webhook IS NOT NULL GROUP BY webhook),"
        f" hooks AS (UPDATE {table(h)} SET"
        f" {fails} = CASE WHEN counted.ok THEN 0 ELSE {table(h)}.{fails} + counted.failed END,"
        f" {since} = CASE WHEN counted.ok THEN NULL ELSE COALESCE({table(h)}.{since}, %(now)s) END"
        f" FROM counted WHERE {table(h)}.{column(h, 'id')} = counted.id"
        f" RETURNING {table(h)}.{column(h, 'id')} AS id, {table(h)}.{since} AS failing_since,"
        f" {table(h)}.{fails} AS failed_attempts)"
    )


def _in_one_statement(
    states: list[tuple[int, Outcome]], attempts: list[Model], *, token: str, now: datetime
) -> tuple[set[int], list[HookCount]]:
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
        rows = cur.fetchall()
    held = {row[0] for row in rows if row[0] is not None}
    counts = [(row[1], from_db(_models().Webhook, "failing_since", row[2]), row[3]) for row in rows if row[1]]
    return held, counts


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
    states: list[tuple[int, Outcome]],
    attempts: list[Model],
    *,
    token: str,
    now: datetime,
    webhooks: dict[int, str | None],
) -> tuple[set[int], list[HookCount]]:
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
        counts = _count_failures([(pk, o) for pk, o in written], webhooks, now)
    return held, counts


def _count_failures(
    written: list[tuple[int, Outcome]], webhooks: dict[int, str | None], now: datetime
) -> list[HookCount]:
    """_webhooks_counted() where no single statement does it (SQLite, which serialises writers)."""
    hook_model = _models().Webhook
    per_hook: dict[str, tuple[bool, int]] = {}
    for pk, outcome in written:
        hook_id = webhooks.get(pk)
        if hook_id:
            ok, failed = per_hook.get(hook_id, (False, 0))
            per_hook[hook_id] = (ok or outcome.status == "delivered", failed + 1)
    for hook_id, (ok, failed) in per_hook.items():
        hooks = hook_model.objects.filter(pk=hook_id)
        if ok:
            hooks.update(failed_attempts=0, failing_since=None)
        else:
            since = Coalesce("failing_since", Value(now, output_field=DateTimeField()))
            hooks.update(failed_attempts=F("failed_attempts") + failed, failing_since=since)
    rows = hook_model.objects.filter(pk__in=list(per_hook))
    return list(rows.values_list("pk", "failing_since", "failed_attempts"))


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
    return record_batch_counted(states, attempts, token=token, now=now, webhooks={})[0]


def record_batch_counted(
    states: list[tuple[int, Outcome]],
    attempts: list[Model],
    *,
    token: str,
    now: datetime,
    webhooks: dict[int, str | None],
) -> tuple[set[int], list[HookCount]]:
    """record_batch(), also keeping the failure count of each registered webhook the batch touched
    (`webhooks`: delivery id -> webhook id): (held ids, [(webhook id, failing since, failed attempts)])."""
    if not states:
        return set(), []
    if connection.vendor == "postgresql":
        return _in_one_statement(states, attempts, token=token, now=now)
    return _one_by_one(states, attempts, token=token, now=now, webhooks=webhooks)
