"""emit()'s statements: what a session's events go to, and the event with its deliveries in one write.

emit() runs for every event; through the ORM most of its CPU went to building these two statements
(docs/decisions/0001), so they are written here like the worker's (webhooks.outbox.sql), with names and
values taken from the models and their fields (webhooks.outbox.rows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import Model

from webhooks.models import Event, EventSequence, InstanceWebhookConfig, Webhook
from webhooks.outbox.rows import (
    column,
    cursor,
    fetch,
    finish_inserted,
    from_db,
    insert_with_children,
    insert_with_children_statement,
    literal,
    qn,
    table,
    to_db,
)
from webhooks.schedules import schedule_attempts


@cache
def _targets_statement(vendor: str) -> str:
    """What emit() needs of a session, in one round trip: whether its instance webhook is on, its
    account (for the live socket's fan-out) and its registered webhooks (one row with NULLs when it
    has none). Kept per process (webhooks.lookups)."""
    hook, config = Webhook, InstanceWebhookConfig
    session = Event._meta.get_field("session").related_model
    return (
        f"SELECT EXISTS (SELECT 1 FROM {table(config)}"
        f" WHERE {column(config, 'session')} = %(session)s AND {column(config, 'allow_webhook')} = %(on)s)"
        " AS instance_webhooks_enabled,"
        f" (SELECT {column(session, 'account')} FROM {table(session)}"
        f" WHERE {column(session, 'id')} = %(session)s) AS account_id,"
        f" hook.{column(hook, 'id')} AS hook_id, hook.{column(hook, 'url')} AS hook_url,"
        f" hook.{column(hook, 'events')} AS hook_events,"
        f" hook.{column(hook, 'retry_count')} AS hook_retry_count,"
        f" hook.{column(hook, 'retry_schedule')} AS hook_retry_schedule,"
        f" hook.{column(hook, 'filter')} AS hook_filter,"
        f" hook.{column(hook, 'ordering')} = {literal(hook.Ordering.FIFO)} AS hook_fifo,"
        # A disabled webhook's deliveries are written held (webhooks.outbox.disable), so nothing is lost.
        f" hook.{column(hook, 'status')} = {literal(hook.Status.ACTIVE)} AS hook_active"
        f" FROM (SELECT 1 AS one) AS one LEFT JOIN {table(hook)} AS hook"
        f" ON hook.{column(hook, 'session')} = %(session)s"
        f" ORDER BY hook.{column(hook, 'created_at')}, hook.{column(hook, 'id')}"
    )


@dataclass(frozen=True)
class Targets:
    instance_webhooks_enabled: bool
    account_id: Any
    # (id, url, canonical event names, attempts, active, filter, fifo) of each webhook registered on
    # the session; attempts under its retry schedule (webhooks.schedules), its filter parsed
    # (webhooks.body_filters), both kept with the rest per process (webhooks.lookups); fifo: its
    # ordering is "fifo" (webhooks.outbox.fifo).
    webhooks: tuple[tuple[str, str, tuple[str, ...], int, bool, dict | None, bool], ...]


def session_targets(session_id: Any) -> Targets:
    params = {"session": to_db(Event, "session", session_id), "on": True}
    rows = fetch(_targets_statement(connection.vendor), params, prepare=True)
    hooks = tuple(
        (
            row["hook_id"],
            row["hook_url"],
            tuple(from_db(Webhook, "events", row["hook_events"])),
            schedule_attempts(
                from_db(Webhook, "retry_schedule", row["hook_retry_schedule"]), row["hook_retry_count"]
            ),
            bool(row["hook_active"]),
            from_db(Webhook, "filter", row["hook_filter"]),
            bool(row["hook_fifo"]),
        )
        for row in rows
        if row["hook_id"] is not None
    )
    first = rows[0]
    return Targets(bool(first["instance_webhooks_enabled"]), first["account_id"], hooks)


@cache
def _next_sequence_statement(vendor: str) -> str:
    """Raise the (session, chat) counter and return its new value; a first event makes it 1."""
    s = EventSequence
    t, session, chat, last = table(s), column(s, "session"), column(s, "chat"), column(s, "last")
    return (
        f"INSERT INTO {t} ({session}, {chat}, {last}) VALUES (%(seq_session)s, %(seq_chat)s, 1)"
        f" ON CONFLICT ({session}, {chat}) DO UPDATE SET {last} = {t}.{last} + 1 RETURNING {last}"
    )


def event_insert(
    event: Model, deliveries: list[Model], *, numbered: Callable[[Model], None] | None = None
) -> None:
    """Write a new event, numbered next in its (session, chat), and its deliveries; sets the event's
    `sequence` and the deliveries' keys.

    PostgreSQL: one statement (data-modifying WITH: the counter raised, the event inserted with its
    value, the deliveries inserted, the keys returned). Elsewhere (SQLite), or with `numbered`, the
    counter's statement and then the inserts, in the caller's transaction; `numbered(event)` runs
    between them, while the counter's row lock keeps the chat's other events waiting (a fifo webhook's
    check of the chat's earlier deliveries, webhooks.outbox.fifo)."""
    params = {"seq_session": to_db(Event, "session", event.session_id), "seq_chat": event.chat}
    if connection.vendor != "postgresql" or numbered is not None:
        event.sequence = fetch(_next_sequence_statement(connection.vendor), params)[0]["last"]
        if numbered is not None:
            numbered(event)
        insert_with_children(event, deliveries, unique="dispatch_id")
        return
    counter = _next_sequence_statement(connection.vendor)
    last = f"(SELECT {qn('last')} FROM seq)"
    statement, values = insert_with_children_statement(
        event,
        deliveries,
        unique="dispatch_id",
        before=f"seq AS ({counter})",
        computed={Event._meta.get_field("sequence").column: last},
        returning=last,
    )
    with cursor(prepare=True) as cur:  # one text per number of deliveries: a handful
        cur.execute(statement, {**values, **params})
        rows = cur.fetchall()
    event.sequence = rows[0][-1]
    finish_inserted(
        event, deliveries, {row[1]: row[0] for row in rows if len(row) == 3}, unique="dispatch_id"
    )
