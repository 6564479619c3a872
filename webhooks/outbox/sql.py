"""The outbox's hot statements, as SQL built once per model and database: the worker's here, emit()'s in
webhooks.outbox.emit_sql.

emit() runs for every event, and a worker claims and records every delivery. Through the ORM most of
each statement's CPU goes to building the query, and those statements are most of what an event costs
(docs/decisions/0001). So those few statements are written here, with table and column names taken from the
models' `_meta` and values converted by the fields themselves (`pre_save`, `get_db_prep_save`, the
read converters), so the rows are the ORM's own. Everything else stays in the ORM.

Statements bind named parameters (`%(name)s`, given a dict) and rows are read by column name (each
selected column is named with AS), so a statement and the code reading it cannot drift apart by one.

PostgreSQL and SQLite (3.35 or later, for RETURNING).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any

from django.db import connection

from webhooks.models import Delivery, Webhook
from webhooks.outbox.rows import column, execute, fetch, from_db, in_list, literal, qn, table, to_db

# --- The worker: claims and records (emit()'s statements: webhooks.outbox.emit_sql) ---------------


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
    request_id: str = ""
    created_at: datetime | None = None
    rate_limit: int | None = None  # of its registered webhook, deliveries per second
    previous_secret: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    retry_schedule: Any = None  # of its registered webhook (webhooks.outbox.policy)
    fifo: bool = False  # its registered webhook's ordering is "fifo" (webhooks.outbox.fifo)


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


# The delivery fields a claim returns, each under its field name.
# fmt: off
_CLAIMED_FIELDS = [
    "id", "kind", "webhook", "target_url", "payload", "dispatch_id", "timeout_seconds", "attempt_count",
    "max_attempts", "next_attempt_at", "resend_pending", "resend_requested_by", "request_id", "created_at",
]
# fmt: on


def _waiting_sql() -> str:
    """Due rows of one target waiting for an attempt (index delivery_waiting_by_target)."""
    d = Delivery
    status, target = column(d, "status"), column(d, "target_url")
    return (
        f"{target} = %(target)s AND {status} IN ({literal(d.Status.PENDING)}, {literal(d.Status.FAILED)})"
        f" AND {column(d, 'next_attempt_at')} <= %(now)s"
    )


def _stuck_sql() -> str:
    """Rows of one target held by a claim older than the lease, as their worker died
    (index delivery_sending_by_target)."""
    d = Delivery
    status, target = column(d, "status"), column(d, "target_url")
    return (
        f"{target} = %(target)s AND {status} = {literal(d.Status.SENDING)}"
        f" AND {column(d, 'claimed_at')} < %(lease_cutoff)s"
    )


def _claimable_params(target_url: str, now: datetime, lease_cutoff: datetime) -> dict[str, Any]:
    """Parameters of _waiting_sql() and _stuck_sql()."""
    d = Delivery
    return {
        "target": target_url,
        "sending": d.Status.SENDING,
        "now": to_db(d, "next_attempt_at", now),
        "lease_cutoff": to_db(d, "claimed_at", lease_cutoff),
    }


def _webhook_columns() -> str:
    """What signing and sending need of a claimed delivery's webhook, read at claim time so a resend, a
    replay or a patch applies from the next batch on: the secret, the one a rotation replaced while its
    overlap lasts (webhooks.registered.rotation), the custom headers (webhooks.registered.custom_headers)
    the rate limit (webhooks.outbox.rate_limit), the retry schedule (webhooks.outbox.policy) and whether
    the webhook keeps each chat in order (webhooks.outbox.fifo: its recording releases the chat's next)."""
    d, hook = Delivery, Webhook
    of_hook = (
        f"FROM {table(hook)} WHERE {table(hook)}.{column(hook, 'id')} = {table(d)}.{column(d, 'webhook')}"
    )
    expires = column(hook, "previous_secret_expires_at")
    read = {
        "secret": column(hook, "secret"),
        "previous_secret": f"CASE WHEN {expires} > %(claimed_at)s THEN {column(hook, 'previous_secret')} END",
        "headers": column(hook, "headers"),
        "rate_limit": column(hook, "rate_limit"),
        "retry_schedule": column(hook, "retry_schedule"),
        "fifo": f"{column(hook, 'ordering')} = {literal(hook.Ordering.FIFO)}",
    }
    return ", ".join(f"(SELECT {value} {of_hook}) AS {name}" for name, value in read.items())


@cache
def _worker_statements(vendor: str) -> dict[str, str]:
    """The worker's statements for the current connection (`vendor` keys the cache)."""
    return {**_lookup_statements(), "claim": _claim_statement(), **_release_statements()}


def _lookup_statements() -> dict[str, str]:
    """The sweeper's and the hint's reads."""
    d = Delivery
    t, pk, target = table(d), column(d, "id"), column(d, "target_url")
    waiting, stuck, next_at = _waiting_sql(), _stuck_sql(), column(d, "next_attempt_at")
    return {
        # The sweeper's: deliveries due before `before` (indexes delivery_waiting, delivery_sending).
        "overdue": (
            f"SELECT {pk} AS id, {target} AS target_url FROM {t} WHERE {column(d, 'status')} IN"
            f" ({literal(d.Status.PENDING)}, {literal(d.Status.FAILED)}) AND {next_at} <= %(before)s"
            f" ORDER BY {next_at} LIMIT %(limit)s"
        ),
        "stuck": (
            f"SELECT {pk} AS id, {target} AS target_url FROM {t} WHERE {column(d, 'status')} ="
            f" {literal(d.Status.SENDING)} AND {column(d, 'claimed_at')} <= %(before)s"
            f" ORDER BY {column(d, 'claimed_at')} LIMIT %(limit)s"
        ),
        "hint": (
            f"SELECT {column(d, 'status')} AS status, {target} AS target_url FROM {t} WHERE {pk} = %(id)s"
        ),
        "due": (
            f"SELECT EXISTS (SELECT 1 FROM {t} WHERE {waiting}) OR EXISTS (SELECT 1 FROM {t} WHERE {stuck})"
            " AS due"
        ),
    }


def _claim_statement() -> str:
    """Claims up to %(limit)s waiting or stuck rows of one target, returning them with their webhook's
    current secret, headers, rate limit and retry schedule."""
    d = Delivery
    t = table(d)
    returned = ", ".join(f"{t}.{column(d, name)} AS {qn(name)}" for name in _CLAIMED_FIELDS)
    return (
        f"UPDATE {t} SET {column(d, 'status')} = %(sending)s, {column(d, 'claimed_at')} = %(claimed_at)s,"
        f" {column(d, 'claim_token')} = %(token)s"
        f" WHERE {_claimed_ids()} RETURNING {returned}, {_webhook_columns()}"
    )


def _claimed_ids() -> str:
    """The condition choosing the rows a claim takes."""
    d = Delivery
    t, pk = table(d), column(d, "id")
    waiting, stuck, next_at = _waiting_sql(), _stuck_sql(), column(d, "next_attempt_at")
    # PostgreSQL: concurrent drains of one target take different rows instead of queueing on locks.
    skip_locked = " FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    # Waiting and stuck rows are looked up apart, each on its own partial index: one condition with OR
    # made PostgreSQL merge bitmaps over the whole (target) range instead.
    candidates = (
        f"SELECT {pk}, due FROM (SELECT {pk}, {next_at} AS due FROM {t} WHERE {waiting}"
        f" ORDER BY {next_at}, {pk} LIMIT %(limit)s{skip_locked}) AS waiting"
        f" UNION ALL SELECT {pk}, due FROM (SELECT {pk}, {next_at} AS due FROM {t} WHERE {stuck}"
        f" ORDER BY {next_at}, {pk} LIMIT %(limit)s{skip_locked}) AS stuck"
    )
    chosen = f"SELECT {pk} FROM ({candidates}) AS candidates ORDER BY due, {pk} LIMIT %(limit)s"
    if connection.features.has_select_for_update_skip_locked:
        # PostgreSQL: the sub-select locks the rows it picks and, for a row changed since the statement
        # began, checks its condition again on the new version, so the ids it returns are claimable;
        # they are chosen once (an ARRAY sub-select is an init plan) and the rows fetched by key.
        # Written as `IN (sub-select) AND <condition again>`, the planner, its statistics behind a busy
        # table, could start from that condition instead: a bitmap over every target's waiting and
        # sending entries, dead row versions included until vacuum (docs/decisions/0002).
        return f"{pk} = ANY(ARRAY({chosen}))"
    # Without row locks (SQLite serialises writers), the condition is repeated on the rows updated.
    return f"{pk} IN ({chosen}) AND (({waiting}) OR ({stuck}))"


def _release_statements() -> dict[str, str]:
    """Checking a claim is still held, giving rows back, and recording an attempt's outcome."""
    d = Delivery
    t, pk = table(d), column(d, "id")
    held_lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return {
        "held": (
            f"SELECT {pk} AS id FROM {t} WHERE {column(d, 'claim_token')} = %(token)s"
            f" AND {pk} IN ({{ids}}){held_lock}"
        ),
        "unclaim": (
            f"UPDATE {t} SET {column(d, 'status')} = %(status)s, {column(d, 'claimed_at')} = NULL,"
            f" {column(d, 'claim_token')} = ''"
            f" WHERE {column(d, 'claim_token')} = %(token)s AND {pk} IN ({{ids}})"
        ),
        "record": (
            f"UPDATE {t} SET {column(d, 'status')} = %(status)s, {column(d, 'attempt_count')} = %(attempts)s,"
            f" {column(d, 'last_status_code')} = %(status_code)s, {column(d, 'last_error')} = %(error)s,"
            f" {column(d, 'claimed_at')} = NULL, {column(d, 'claim_token')} = '',"
            f" {column(d, 'resend_pending')} = %(resend_pending)s,"
            f" {column(d, 'delivered_at')} = COALESCE(%(delivered_at)s, {column(d, 'delivered_at')}),"
            f" {column(d, 'dead_at')} = COALESCE(%(dead_at)s, {column(d, 'dead_at')}),"
            f" {column(d, 'next_attempt_at')} = COALESCE(%(next_at)s, {column(d, 'next_attempt_at')}),"
            f" {column(d, 'updated_at')} = %(now)s"
            f" WHERE {pk} = %(id)s AND {column(d, 'claim_token')} = %(token)s"
        ),
    }


def sweepable(which: str, *, before: datetime, limit: int) -> list[tuple[int, str]]:
    """The sweeper's rows: (id, target URL) of `overdue` deliveries (waiting, due before `before`) or
    `stuck` ones (claimed before `before`), oldest first."""
    d = Delivery
    params = {"before": to_db(d, "next_attempt_at", before), "limit": limit}
    rows = fetch(_worker_statements(connection.vendor)[which], params)
    return [(row["id"], row["target_url"]) for row in rows]


def delivery_hint(delivery_id: int) -> tuple[str, str] | None:
    """(status, target URL) of a delivery, or None when it is gone."""
    rows = fetch(_worker_statements(connection.vendor)["hint"], {"id": delivery_id}, prepare=True)
    return (rows[0]["status"], rows[0]["target_url"]) if rows else None


def due_exists(target_url: str, *, now: datetime, lease_cutoff: datetime) -> bool:
    params = _claimable_params(target_url, now, lease_cutoff)
    return bool(fetch(_worker_statements(connection.vendor)["due"], params, prepare=True)[0]["due"])


def claim(target_url: str, *, limit: int, token: str, now: datetime, lease_cutoff: datetime) -> list[Claimed]:
    """Claim up to `limit` claimable deliveries of one target in one statement, oldest due first.

    Exclusive: on PostgreSQL the rows picked are locked (SKIP LOCKED) and rechecked; elsewhere the
    condition is repeated on the rows updated (SQLite serialises writers)."""
    d = Delivery
    params = {
        **_claimable_params(target_url, now, lease_cutoff),
        "claimed_at": to_db(d, "claimed_at", now),
        "token": token,
        "limit": limit,
    }
    rows = fetch(_worker_statements(connection.vendor)["claim"], params)
    claimed = [
        Claimed(
            pk=row["id"],
            kind=row["kind"],
            webhook_id=row["webhook"],
            secret=from_db(Webhook, "secret", row["secret"]),  # decrypted (core.fields)
            previous_secret=from_db(Webhook, "previous_secret", row["previous_secret"]) or "",
            headers=from_db(Webhook, "headers", row["headers"]) or {},
            target_url=row["target_url"],
            payload=from_db(d, "payload", row["payload"]),
            dispatch_id=row["dispatch_id"],
            timeout_seconds=row["timeout_seconds"],
            attempt_count=row["attempt_count"],
            max_attempts=row["max_attempts"],
            scheduled_at=from_db(d, "next_attempt_at", row["next_attempt_at"]),
            resend_pending=bool(row["resend_pending"]),
            resend_requested_by_id=row["resend_requested_by"],
            request_id=row["request_id"],
            created_at=from_db(d, "created_at", row["created_at"]),
            rate_limit=row["rate_limit"],
            retry_schedule=from_db(Webhook, "retry_schedule", row["retry_schedule"]),
            fifo=bool(row["fifo"]),
        )
        for row in rows
    ]
    return sorted(claimed, key=lambda c: (c.scheduled_at, c.pk))


def unclaim(ids: list[int], *, token: str, status: str) -> None:
    """Give back claimed deliveries that were not sent, as `status`; no attempt is used."""
    if ids:
        placeholders, id_params = in_list("id", ids)
        sql = _worker_statements(connection.vendor)["unclaim"].format(ids=placeholders)
        execute(sql, {"status": status, "token": token, **id_params})


def held_statement() -> str:
    """Which of `{ids}` a claim (`%(token)s`) still holds, locked until the transaction ends
    (PostgreSQL); the ids go in with str.format (webhooks.outbox.recording)."""
    return _worker_statements(connection.vendor)["held"]


def record_statement() -> str:
    """One delivery's new state, releasing its claim (webhooks.outbox.recording, where no single statement
    writes a batch)."""
    return _worker_statements(connection.vendor)["record"]
