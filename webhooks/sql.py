"""The outbox's hot statements, as SQL built once per model and database.

emit() runs for every event, and a worker claims and records every delivery. Through the ORM each of
those statements cost 1.3-1.6 ms of CPU on the CI machine, mostly building the query, against
0.2-0.3 ms for the same statement through a cursor; bench/webhooks.py showed them to be most of what an
event costs. So those few statements are written here, with table and column names taken from the
models' `_meta` and values converted by the fields themselves (`pre_save`, `get_db_prep_save`, the
read converters), so the rows are the ORM's own. Everything else stays in the ORM.

PostgreSQL and SQLite (3.35 or later, for RETURNING).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import Field, Model


def qn(name: str) -> str:
    return connection.ops.quote_name(name)


def table(model: type[Model]) -> str:
    return qn(model._meta.db_table)


def column(model: type[Model], name: str) -> str:
    return qn(model._meta.get_field(name).column)


def to_db(model: type[Model], name: str, value: Any) -> Any:
    """A value as the database wants it for a comparison with field `name` (UUIDs, datetimes…)."""
    return model._meta.get_field(name).get_db_prep_value(value, connection)


@cache
def _converters(model: type[Model], name: str, vendor: str) -> tuple[Field, Any, list[Callable]]:
    field = model._meta.get_field(name)
    expression = field.get_col(model._meta.db_table)
    converters = connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
    return field, expression, converters


def from_db(model: type[Model], name: str, value: Any) -> Any:
    """A value read from column `name` as the ORM would give it (JSON parsed, datetimes aware…)."""
    _field, expression, converters = _converters(model, name, connection.vendor)
    for converter in converters:
        value = converter(value, expression, connection)
    return value


@cache
def _insert(model: type[Model], vendor: str) -> tuple[str, list[Field], Field | None]:
    """INSERT text for every local column but a database-generated key (the caller may return it)."""
    meta = model._meta
    generated = meta.pk if meta.pk.db_returning else None
    fields = [f for f in meta.local_concrete_fields if f is not generated]
    names = ", ".join(qn(f.column) for f in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {table(model)} ({names}) VALUES ({placeholders})", fields, generated


def _row(obj: Model, fields: list[Field]) -> list[Any]:
    return [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]


def insert(obj: Model) -> None:
    """Write one new model instance (its constructor filled the defaults) and set its generated key.

    As `save()` on a new row would, without its signals (the outbox models have none)."""
    sql, fields, generated = _insert(type(obj), connection.vendor)
    if generated is not None:
        sql += f" RETURNING {qn(generated.column)}"
    with connection.cursor() as cursor:
        cursor.execute(sql, _row(obj, fields))
        if generated is not None:
            setattr(obj, generated.attname, cursor.fetchone()[0])
    obj._state.adding = False
    obj._state.db = connection.alias


def insert_many(objs: Sequence[Model]) -> None:
    """`insert` for several instances of one model whose keys are not needed afterwards."""
    if not objs:
        return
    sql, fields, _generated = _insert(type(objs[0]), connection.vendor)
    with connection.cursor() as cursor:
        cursor.executemany(sql, [_row(obj, fields) for obj in objs])


def fetch(sql: str, params: Iterable[Any]) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.fetchall()


def execute(sql: str, params: Iterable[Any]) -> int:
    """Run one statement; how many rows it touched."""
    with connection.cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.rowcount


# --- emit() --------------------------------------------------------------------------------------
# Imported late: webhooks.models does not need this module, and this one is about those models.


def _models():
    from webhooks import models

    return models


@cache
def _emit_statement(vendor: str) -> str:
    """emit()'s reads in one round trip: the chat's last sequence, whether instance webhooks are on,
    and the session's registered webhooks (one row with NULLs when it has none)."""
    m = _models()
    event, hook, config = m.Event, m.Webhook, m.InstanceWebhookConfig
    return (
        f"SELECT (SELECT MAX({column(event, 'sequence')}) FROM {table(event)}"
        f" WHERE {column(event, 'session')} = %s AND {column(event, 'chat')} = %s),"
        f" EXISTS (SELECT 1 FROM {table(config)}"
        f" WHERE {column(config, 'session')} = %s AND {column(config, 'allow_webhook')} = %s),"
        f" hook.{column(hook, 'id')}, hook.{column(hook, 'url')}, hook.{column(hook, 'events')},"
        f" hook.{column(hook, 'retry_count')}"
        f" FROM (SELECT 1 AS one) AS one LEFT JOIN {table(hook)} AS hook"
        f" ON hook.{column(hook, 'session')} = %s"
    )


@dataclass(frozen=True)
class EmitContext:
    last_sequence: int
    instance_webhooks_enabled: bool
    # (id, url, canonical event names, retry count) of each webhook registered on the session.
    webhooks: list[tuple[str, str, list[str], int]]


def emit_context(session_id: Any, chat: str) -> EmitContext:
    m = _models()
    session = to_db(m.Event, "session", session_id)
    rows = fetch(_emit_statement(connection.vendor), [session, chat, session, True, session])
    last, enabled = rows[0][0], rows[0][1]
    hooks = [
        (pk, url, from_db(m.Webhook, "events", events), retry)
        for _last, _enabled, pk, url, events, retry in rows
        if pk is not None
    ]
    return EmitContext(last or 0, bool(enabled), hooks)


# --- The worker: claims and records --------------------------------------------------------------


@dataclass(frozen=True)
class Claimed:
    """What sending and recording one claimed delivery needs."""

    pk: int
    kind: str
    webhook_id: str | None
    secret: str | None
    target_url: str
    payload: Any
    dispatch_id: str
    timeout_seconds: float
    attempt_count: int
    max_attempts: int
    scheduled_at: datetime
    resend_pending: bool
    resend_requested_by_id: int | None


@dataclass(frozen=True)
class Outcome:
    """The new state of a delivery after an attempt (None: unchanged)."""

    status: str
    attempt_count: int
    last_status_code: int | None
    last_error: str
    delivered_at: datetime | None = None
    dead_at: datetime | None = None
    next_attempt_at: datetime | None = None


_CLAIMED_FIELDS = [
    "id",
    "kind",
    "webhook",
    "target_url",
    "payload",
    "dispatch_id",
    "timeout_seconds",
    "attempt_count",
    "max_attempts",
    "next_attempt_at",
    "resend_pending",
    "resend_requested_by",
]


def _waiting_sql() -> str:
    """Due rows of one target waiting for an attempt (index delivery_waiting_by_target)."""
    d = _models().Delivery
    status, target = column(d, "status"), column(d, "target_url")
    return f"{target} = %s AND {status} IN (%s, %s) AND {column(d, 'next_attempt_at')} <= %s"


def _stuck_sql() -> str:
    """Rows of one target held by a claim older than the lease, as their worker died
    (index delivery_sending_by_target)."""
    d = _models().Delivery
    status, target = column(d, "status"), column(d, "target_url")
    return f"{target} = %s AND {status} = %s AND {column(d, 'claimed_at')} < %s"


def _claimable_params(target_url: str, now: datetime, lease_cutoff: datetime) -> tuple[list[Any], list[Any]]:
    """Parameters of _waiting_sql() and _stuck_sql()."""
    d = _models().Delivery
    waiting = [target_url, d.Status.PENDING, d.Status.FAILED, to_db(d, "next_attempt_at", now)]
    stuck = [target_url, d.Status.SENDING, to_db(d, "claimed_at", lease_cutoff)]
    return waiting, stuck


@cache
def _worker_statements(vendor: str) -> dict[str, str]:
    m = _models()
    d, hook = m.Delivery, m.Webhook
    t, pk, target = table(d), column(d, "id"), column(d, "target_url")
    waiting, stuck, next_at = _waiting_sql(), _stuck_sql(), column(d, "next_attempt_at")
    # PostgreSQL: concurrent drains of one target take different rows instead of queueing on locks.
    skip_locked = " FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    returned = ", ".join(f"{t}.{column(d, name)}" for name in _CLAIMED_FIELDS)
    hook_pk = f"{table(hook)}.{column(hook, 'id')}"
    secret = (
        f"(SELECT {column(hook, 'secret')} FROM {table(hook)} WHERE {hook_pk} = {t}.{column(d, 'webhook')})"
    )
    held_lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    # Waiting and stuck rows are looked up apart, each on its own partial index: one condition with OR
    # made PostgreSQL merge bitmaps over the whole (target) range instead.
    candidates = (
        f"SELECT {pk}, due FROM (SELECT {pk}, {next_at} AS due FROM {t} WHERE {waiting}"
        f" ORDER BY {next_at}, {pk} LIMIT %s{skip_locked}) AS waiting"
        f" UNION ALL SELECT {pk}, due FROM (SELECT {pk}, {next_at} AS due FROM {t} WHERE {stuck}"
        f" ORDER BY {next_at}, {pk} LIMIT %s{skip_locked}) AS stuck"
    )
    return {
        "hint": f"SELECT {column(d, 'status')}, {target} FROM {t} WHERE {pk} = %s",
        "due": (
            f"SELECT EXISTS (SELECT 1 FROM {t} WHERE {waiting}) OR EXISTS (SELECT 1 FROM {t} WHERE {stuck})"
        ),
        "claim": (
            f"UPDATE {t} SET {column(d, 'status')} = %s, {column(d, 'claimed_at')} = %s,"
            f" {column(d, 'claim_token')} = %s"
            f" WHERE {pk} IN (SELECT {pk} FROM ({candidates}) AS candidates ORDER BY due, {pk} LIMIT %s)"
            f" AND (({waiting}) OR ({stuck})) RETURNING {returned}, {secret}"
        ),
        "held": (
            f"SELECT {pk} FROM {t} WHERE {column(d, 'claim_token')} = %s AND {pk} IN ({{ids}}){held_lock}"
        ),
        "unclaim": (
            f"UPDATE {t} SET {column(d, 'status')} = %s, {column(d, 'claimed_at')} = NULL,"
            f" {column(d, 'claim_token')} = '' WHERE {column(d, 'claim_token')} = %s AND {pk} IN ({{ids}})"
        ),
        "record": (
            f"UPDATE {t} SET {column(d, 'status')} = %s, {column(d, 'attempt_count')} = %s,"
            f" {column(d, 'last_status_code')} = %s, {column(d, 'last_error')} = %s,"
            f" {column(d, 'claimed_at')} = NULL, {column(d, 'claim_token')} = '',"
            f" {column(d, 'resend_pending')} = %s,"
            f" {column(d, 'delivered_at')} = COALESCE(%s, {column(d, 'delivered_at')}),"
            f" {column(d, 'dead_at')} = COALESCE(%s, {column(d, 'dead_at')}),"
            f" {column(d, 'next_attempt_at')} = COALESCE(%s, {column(d, 'next_attempt_at')}),"
            f" {column(d, 'updated_at')} = %s"
            f" WHERE {pk} = %s AND {column(d, 'claim_token')} = %s"
        ),
    }


def _in_list(count: int) -> str:
    return ", ".join(["%s"] * count)


def delivery_hint(delivery_id: int) -> tuple[str, str] | None:
    """(status, target URL) of a delivery, or None when it is gone."""
    rows = fetch(_worker_statements(connection.vendor)["hint"], [delivery_id])
    return rows[0] if rows else None


def due_exists(target_url: str, *, now: datetime, lease_cutoff: datetime) -> bool:
    waiting, stuck = _claimable_params(target_url, now, lease_cutoff)
    return bool(fetch(_worker_statements(connection.vendor)["due"], [*waiting, *stuck])[0][0])


def claim(target_url: str, *, limit: int, token: str, now: datetime, lease_cutoff: datetime) -> list[Claimed]:
    """Claim up to `limit` claimable deliveries of one target in one statement, oldest due first.

    The condition is repeated outside the sub-select, so the claim stays exclusive where rows are not
    locked (SQLite serialises writers instead)."""
    d = _models().Delivery
    waiting, stuck = _claimable_params(target_url, now, lease_cutoff)
    params = [
        d.Status.SENDING,
        to_db(d, "claimed_at", now),
        token,
        *waiting,
        limit,
        *stuck,
        limit,
        limit,
        *waiting,
        *stuck,
    ]
    rows = fetch(_worker_statements(connection.vendor)["claim"], params)
    claimed = [
        Claimed(
            pk=row[0],
            kind=row[1],
            webhook_id=row[2],
            secret=from_db(_models().Webhook, "secret", row[12]),  # decrypted (config.fields)
            target_url=row[3],
            payload=from_db(d, "payload", row[4]),
            dispatch_id=row[5],
            timeout_seconds=row[6],
            attempt_count=row[7],
            max_attempts=row[8],
            scheduled_at=from_db(d, "next_attempt_at", row[9]),
            resend_pending=bool(row[10]),
            resend_requested_by_id=row[11],
        )
        for row in rows
    ]
    return sorted(claimed, key=lambda c: (c.scheduled_at, c.pk))


def unclaim(ids: list[int], *, token: str, status: str) -> None:
    """Give back claimed deliveries that were not sent, as `status`; no attempt is used."""
    if ids:
        sql = _worker_statements(connection.vendor)["unclaim"].format(ids=_in_list(len(ids)))
        execute(sql, [status, token, *ids])


def held(ids: list[int], *, token: str) -> set[int]:
    """Which of `ids` this claim still holds, locked until the transaction ends (PostgreSQL)."""
    sql = _worker_statements(connection.vendor)["held"].format(ids=_in_list(len(ids)))
    return {row[0] for row in fetch(sql, [token, *ids])}


def record(outcomes: list[tuple[int, Outcome]], *, token: str, now: datetime) -> None:
    """Write each delivery's new state, releasing its claim."""
    d = _models().Delivery
    rows = [
        [
            outcome.status,
            outcome.attempt_count,
            outcome.last_status_code,
            outcome.last_error,
            to_db(d, "resend_pending", False),
            to_db(d, "delivered_at", outcome.delivered_at),
            to_db(d, "dead_at", outcome.dead_at),
            to_db(d, "next_attempt_at", outcome.next_attempt_at),
            to_db(d, "updated_at", now),
            pk,
            token,
        ]
        for pk, outcome in outcomes
    ]
    if rows:
        with connection.cursor() as cursor:
            cursor.executemany(_worker_statements(connection.vendor)["record"], rows)
