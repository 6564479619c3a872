"""The deliveries' job store on PostgreSQL: the ORM's store (webhooks.outbox.store_orm) with its three
hottest operations written as one statement each, because the benches show they pay (docs/decisions/0026):

* emit()'s write: the chat's counter raised, the event inserted with its number and its deliveries
  inserted, in one data-modifying WITH (the send path's statement count is pinned at 8 and the ORM needs
  three statements here);
* the claim: one UPDATE whose ids come from `FOR UPDATE SKIP LOCKED` sub-selects taken as an ARRAY (an
  init plan run once, docs/decisions/0002), RETURNING the rows with their webhook's current settings;
* a batch's record: one UPDATE from the outcomes' arrays, the attempts of the rows still held and the
  webhooks' failure counts in the same statement (docs/decisions/0003);

and two reads the worker makes for every batch or hint (is anything due, the hint's status and target)
as prepared statements.

Names come from the models' `_meta`; values go in as the fields prepare them for a save
(`get_db_prep_save`) and come out through their `from_db_value`, as the ORM's own rows. Each statement
is prepared once per connection (psycopg's server-binding cursor) unless PONTE_DB_PREPARE is off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.db.models import Model

from webhooks.models import Delivery, DeliveryAttempt, Event, EventSequence, Webhook
from webhooks.outbox.store_orm import SENDING, WAITING, OrmStore, claimed_of
from webhooks.outbox.values import Claimed, HookCount, Outcome

# --- Names and values, from the models -------------------------------------------------------------


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _t(model: type[Model]) -> str:
    return _q(model._meta.db_table)


def _c(model: type[Model], name: str) -> str:
    return _q(model._meta.get_field(name).column)


def _type(model: type[Model], name: str) -> str:
    return model._meta.get_field(name).db_type(connection)


def _constants(values: Sequence[str]) -> str:
    """Statuses written into the text: a partial index's condition is matched against it."""
    if not all(value.isidentifier() for value in values):
        raise ValueError(f"not plain names: {values!r}")
    return ", ".join(f"'{value}'" for value in values)


def _read(model: type[Model], name: str, value: Any) -> Any:
    """A value read as the ORM gives it (JSON parsed, secrets decrypted)."""
    field = model._meta.get_field(name)
    from_db = getattr(field, "from_db_value", None)
    return from_db(value, None, connection) if from_db is not None and value is not None else value


@cache
def _insert_fields(model: type[Model]) -> list[Any]:
    """Every local column but a database-generated key."""
    generated = model._meta.pk if model._meta.pk.db_returning else None
    return [f for f in model._meta.local_concrete_fields if f is not generated]


def _values(obj: Model) -> dict[str, Any]:
    """A new instance's column values, as Model.save() would write them."""
    return {
        f.column: f.get_db_prep_save(f.pre_save(obj, True), connection) for f in _insert_fields(type(obj))
    }


@cache
def _preparing_cursor_class() -> type:
    from django.db.backends.postgresql.base import ServerBindingCursor

    class PreparingCursor(ServerBindingCursor):
        def execute(self, query, params=None, *, prepare=None, binary=None):
            return super().execute(query, params, prepare=True if prepare is None else prepare, binary=binary)

    return PreparingCursor


@contextmanager
def _cursor(prepare: bool) -> Iterator[CursorWrapper]:
    """With `prepare`, a cursor whose statements PostgreSQL parses and plans once per connection
    (planning was a third of the database's work for emit(), docs/decisions/0001); through Django's
    wrapper either way (execute wrappers, the debug log, the statement counts of the tests)."""
    # A pooler in transaction mode cannot keep prepared statements (PONTE_DB_PREPARE off).
    if not prepare or not settings.PONTE_DB_PREPARE:
        with connection.cursor() as wrapper:
            yield wrapper
        return
    connection.ensure_connection()
    with connection._prepare_cursor(_preparing_cursor_class()(connection.connection)) as wrapper:
        yield wrapper


def _fetch(sql: str, params: dict[str, Any], *, prepare: bool = True) -> list[tuple]:
    with _cursor(prepare) as cur:
        cur.execute(sql, params)
        return cur.fetchall()


# --- emit()'s write --------------------------------------------------------------------------------


@cache
def _counter_sql() -> str:
    s = EventSequence
    t, session, chat, last = _t(s), _c(s, "session"), _c(s, "chat"), _c(s, "last")
    return (
        f"INSERT INTO {t} ({session}, {chat}, {last}) VALUES (%(seq_session)s, %(seq_chat)s, 1)"
        f" ON CONFLICT ({session}, {chat}) DO UPDATE SET {last} = {t}.{last} + 1 RETURNING {last}"
    )


@cache
def _event_sql(deliveries: int) -> str:
    """One text per number of deliveries (a handful): the counter raised, the event written with its
    value, its deliveries written, their (key, dispatch id) and the number returned."""
    number = f"(SELECT {_q('last')} FROM seq)"
    event_columns = [f.column for f in _insert_fields(Event)]
    sequence = Event._meta.get_field("sequence").column
    event_values = [number if name == sequence else f"%(e_{name})s" for name in event_columns]
    parent = (
        f"INSERT INTO {_t(Event)} ({', '.join(map(_q, event_columns))}) VALUES ({', '.join(event_values)})"
    )
    if not deliveries:
        return f"WITH seq AS ({_counter_sql()}), parent AS ({parent}) SELECT {number}"
    columns = [f.column for f in _insert_fields(Delivery)]
    rows = ", ".join("(" + ", ".join(f"%(d{n}_{name})s" for name in columns) + ")" for n in range(deliveries))
    return (
        f"WITH seq AS ({_counter_sql()}), parent AS ({parent})"
        f" INSERT INTO {_t(Delivery)} ({', '.join(map(_q, columns))}) VALUES {rows}"
        f" RETURNING {_c(Delivery, 'id')}, {_c(Delivery, 'dispatch_id')}, {number}"
    )


# --- The claim -------------------------------------------------------------------------------------


def _condition(which: str) -> str:
    d, t = Delivery, _t(Delivery)
    if which == "waiting":
        return (
            f"{t}.{_c(d, 'target_url')} = %(target)s AND {t}.{_c(d, 'status')} IN ({_constants(WAITING)})"
            f" AND {t}.{_c(d, 'next_attempt_at')} <= %(now)s"
        )
    return (
        f"{t}.{_c(d, 'target_url')} = %(target)s AND {t}.{_c(d, 'status')} IN ({_constants([SENDING])})"
        f" AND {t}.{_c(d, 'claimed_at')} < %(lease_cutoff)s"
    )


# The delivery's columns a claim returns, and its webhook's (read at claim time: a patch, a rotation or
# a resend applies from the next batch on).
# fmt: off
_DELIVERY_COLUMNS = (
    "id", "kind", "webhook", "target_url", "payload", "dispatch_id", "timeout_seconds", "attempt_count",
    "max_attempts", "next_attempt_at", "resend_pending", "resend_requested_by", "request_id", "created_at",
)
_WEBHOOK_COLUMNS = (
    "secret", "previous_secret", "previous_secret_expires_at", "headers", "rate_limit", "retry_schedule",
    "ordering",
)
# fmt: on


@cache
def _claim_sql() -> str:
    d, h, t = Delivery, Webhook, _t(Delivery)
    pk, next_at = _c(d, "id"), _c(d, "next_attempt_at")
    picks = " UNION ALL ".join(
        f"SELECT * FROM (SELECT {pk}, {next_at} AS due FROM {t} WHERE {_condition(which)}"
        f" ORDER BY {next_at}, {pk} LIMIT %(limit)s FOR UPDATE SKIP LOCKED) AS {which}"
        for which in ("waiting", "stuck")
    )
    chosen = f"SELECT {pk} FROM ({picks}) AS candidates ORDER BY due, {pk} LIMIT %(limit)s"
    returned = ", ".join(f"{t}.{_c(d, name)}" for name in _DELIVERY_COLUMNS)
    of_hook = f"FROM {_t(h)} WHERE {_t(h)}.{_c(h, 'id')} = {t}.{_c(d, 'webhook')}"
    hooks = ", ".join(f"(SELECT {_c(h, name)} {of_hook})" for name in _WEBHOOK_COLUMNS)
    return (
        f"UPDATE {t} SET {_c(d, 'status')} = %(sending)s, {_c(d, 'claimed_at')} = %(now)s,"
        f" {_c(d, 'claim_token')} = %(token)s"
        f" WHERE {pk} = ANY(ARRAY({chosen})) RETURNING {returned}, {hooks}"
    )


@cache
def _due_sql() -> str:
    """Is anything of one target due: a prepared statement asked after every batch (both partial indexes)."""
    t = _t(Delivery)
    return (
        f"SELECT EXISTS (SELECT 1 FROM {t} WHERE {_condition('waiting')})"
        f" OR EXISTS (SELECT 1 FROM {t} WHERE {_condition('stuck')})"
    )


@cache
def _hint_sql() -> str:
    d = Delivery
    return f"SELECT {_c(d, 'status')}, {_c(d, 'target_url')} FROM {_t(d)} WHERE {_c(d, 'id')} = %(id)s"


def _claimed(row: tuple, now: datetime) -> Claimed:
    """The claim's row as store_orm.claimed_of() reads one (the ORM's `values()` names)."""
    delivery = dict(zip(_DELIVERY_COLUMNS, row[: len(_DELIVERY_COLUMNS)], strict=True))
    hook = dict(zip(_WEBHOOK_COLUMNS, row[len(_DELIVERY_COLUMNS) :], strict=True))
    values = {f"webhook__{name}": _read(Webhook, name, value) for name, value in hook.items()}
    renamed = {"id": "pk", "webhook": "webhook_id", "resend_requested_by": "resend_requested_by_id"}
    values.update({renamed.get(name, name): value for name, value in delivery.items()})
    values["payload"] = _read(Delivery, "payload", delivery["payload"])
    return claimed_of(values, now)


# --- A batch's record ------------------------------------------------------------------------------

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


@cache
def _record_sql() -> str:
    """One text for every batch: each column of the outcomes and of the attempts travels as one array
    parameter, unnested into rows (a VALUES list gave a text per batch size with hundreds of parameters,
    parsed and planned again each time)."""
    d, a, h = Delivery, DeliveryAttempt, Webhook
    t = _t(d)
    outcomes = ", ".join(f"%(o_{key})s::{_type(d, name)}[]" for key, name in _OUTCOME_FIELDS)
    outcome_names = ", ".join(key for key, _ in _OUTCOME_FIELDS)

    def kept(name: str, value: str) -> str:  # a NULL in the outcome leaves the column as it is
        return f"{_c(d, name)} = COALESCE(outcome.{value}, {t}.{_c(d, name)})"

    fields = _insert_fields(a)
    columns = ", ".join(_q(f.column) for f in fields)
    attempts = ", ".join(f"%(a_{f.column})s::{f.db_type(connection)}[]" for f in fields)
    fails, since, ht = _c(h, "failed_attempts"), _c(h, "failing_since"), _t(h)
    d_id, d_hook, d_status = f"{t}.{_c(d, 'id')}", f"{t}.{_c(d, 'webhook')}", f"{t}.{_c(d, 'status')}"
    return (
        f"WITH written AS (UPDATE {t} SET {_c(d, 'status')} = outcome.status,"
        f" {_c(d, 'attempt_count')} = outcome.attempts, {_c(d, 'last_status_code')} = outcome.status_code,"
        f" {_c(d, 'last_error')} = outcome.error, {_c(d, 'claimed_at')} = NULL, {_c(d, 'claim_token')} = '',"
        f" {_c(d, 'resend_pending')} = false, {kept('delivered_at', 'delivered_at')},"
        f" {kept('dead_at', 'dead_at')}, {kept('next_attempt_at', 'next_at')},"
        f" {_c(d, 'updated_at')} = %(now)s"
        f" FROM unnest({outcomes}) AS outcome ({outcome_names})"
        f" WHERE {t}.{_c(d, 'id')} = outcome.id AND {t}.{_c(d, 'claim_token')} = %(token)s"
        f" RETURNING {d_id} AS id, {d_hook} AS webhook, {d_status} AS status),"
        f" inserted AS (INSERT INTO {_t(a)} ({columns}) SELECT attempt.* FROM unnest({attempts})"
        f" AS attempt ({columns}) JOIN written ON attempt.{_c(a, 'delivery')} = written.id),"
        # Each registered webhook's failure count (webhooks.outbox.disable): a delivered attempt resets
        # it, else the batch's failed attempts are added and `failing_since` is set if it was not.
        " counted AS (SELECT webhook AS id, bool_or(status = 'delivered') AS ok, count(*) AS failed"
        " FROM written WHERE webhook IS NOT NULL GROUP BY webhook),"
        f" hooks AS (UPDATE {ht} SET"
        f" {fails} = CASE WHEN counted.ok THEN 0 ELSE {ht}.{fails} + counted.failed END,"
        f" {since} = CASE WHEN counted.ok THEN NULL ELSE COALESCE({ht}.{since}, %(now)s) END"
        f" FROM counted WHERE {ht}.{_c(h, 'id')} = counted.id"
        f" RETURNING {ht}.{_c(h, 'id')} AS id, {ht}.{since} AS failing_since,"
        f" {ht}.{fails} AS failed_attempts)"
        f" SELECT id, NULL::{_type(h, 'id')} AS hook, NULL::{_type(h, 'failing_since')} AS since,"
        f" NULL::{_type(h, 'failed_attempts')} AS fails FROM written"
        " UNION ALL SELECT NULL, id, failing_since, failed_attempts FROM hooks"
    )


def _outcome_row(pk: int, outcome: Outcome) -> tuple[Any, ...]:
    """In the order of _OUTCOME_FIELDS."""
    return (
        pk,
        outcome.status,
        outcome.attempt_count,
        outcome.last_status_code,
        outcome.last_error,
        outcome.delivered_at,
        outcome.dead_at,
        outcome.next_attempt_at,
    )


# --- The store -------------------------------------------------------------------------------------


class PostgresStore(OrmStore):
    """webhooks.outbox.store.DeliveryStore on PostgreSQL: the ORM's, but for three statements."""

    event_insert_is_atomic = True

    def event_insert(
        self, event: Model, deliveries: list[Model], *, numbered: Callable[[Model], None] | None = None
    ) -> None:
        """One statement, unless `numbered` must run between the counter and the inserts (a fifo
        webhook's check): then the ORM's sequence, in the caller's transaction."""
        if numbered is not None:
            super().event_insert(event, deliveries, numbered=numbered)
            return
        params = {"seq_session": event.session_id, "seq_chat": event.chat}
        params.update({f"e_{key}": value for key, value in _values(event).items()})
        for n, delivery in enumerate(deliveries):
            params.update({f"d{n}_{key}": value for key, value in _values(delivery).items()})
        rows = _fetch(_event_sql(len(deliveries)), params)
        event.sequence = rows[0][-1]
        keys = {row[1]: row[0] for row in rows} if deliveries else {}
        for obj in (event, *deliveries):
            obj._state.adding, obj._state.db = False, connection.alias
        for delivery in deliveries:
            delivery.pk = keys[delivery.dispatch_id]

    def claim(
        self, target_url: str, *, limit: int, token: str, now: datetime, lease_cutoff: datetime
    ) -> list[Claimed]:
        params = {
            "target": target_url,
            "now": now,
            "lease_cutoff": lease_cutoff,
            "sending": SENDING,
            "token": token,
            "limit": limit,
        }
        # Not prepared: a generic plan could ignore the partial indexes the claim reads.
        claimed = [_claimed(row, now) for row in _fetch(_claim_sql(), params, prepare=False)]
        return sorted(claimed, key=lambda c: (c.scheduled_at, c.pk))

    def due_exists(self, target_url: str, *, now: datetime, lease_cutoff: datetime) -> bool:
        """Prepared: asked after every batch and by the hint's helper (bench/webhooks.py's worker CPU
        per event rose by a third with the ORM's two reads)."""
        params = {"target": target_url, "now": now, "lease_cutoff": lease_cutoff}
        return bool(_fetch(_due_sql(), params)[0][0])

    def delivery_hint(self, delivery_id: int) -> tuple[str, str] | None:
        rows = _fetch(_hint_sql(), {"id": delivery_id})
        return (rows[0][0], rows[0][1]) if rows else None

    def record_batch_counted(
        self,
        states: list[tuple[int, Outcome]],
        attempts: list[Model],
        *,
        token: str,
        now: datetime,
        webhooks: dict[int, str | None],
    ) -> tuple[set[int], list[HookCount]]:
        """One statement in autocommit (one round trip; docs/decisions/0003). The webhooks come from the
        rows written, so `webhooks` is not needed here."""
        if not states:
            return set(), []
        params: dict[str, Any] = {"token": token, "now": now}
        outcome_rows = [_outcome_row(pk, outcome) for pk, outcome in states]
        for index, (key, _field) in enumerate(_OUTCOME_FIELDS):
            params[f"o_{key}"] = [row[index] for row in outcome_rows]
        attempt_rows = [_values(attempt) for attempt in attempts]
        for f in _insert_fields(DeliveryAttempt):
            params[f"a_{f.column}"] = [row[f.column] for row in attempt_rows]
        rows = _fetch(_record_sql(), params)
        held = {row[0] for row in rows if row[0] is not None}
        return held, [(row[1], row[2], row[3]) for row in rows if row[1]]
