"""The deliveries' job store written with the ORM (webhooks.outbox.store): the default, on any database.

A claim locks the rows it picks with `select_for_update(skip_locked=True)` (a no-op where the database
serialises writers, as SQLite does: there the UPDATE repeats the claim's condition), a batch's outcomes
are one UPDATE with `Case`/`When` per column after a locking read of the rows the claim still holds, and
the event's number comes from its chat's counter row raised with `F()`.

Statuses are written into the statements as constants (`status__constant_in`): the worker's indexes
are partial on the status, and SQLite uses a partial index only when the query's text implies its
condition, which a bound parameter never does (docs/decisions/0002).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import (
    Case,
    DateTimeField,
    Exists,
    F,
    Field,
    Model,
    OuterRef,
    Q,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from webhooks.models import Delivery, DeliveryAttempt, Event, EventSequence, InstanceWebhookConfig, Webhook
from webhooks.outbox.values import Claimed, HookCount, Outcome, Targets
from webhooks.schedules import schedule_attempts

WAITING = (Delivery.Status.PENDING, Delivery.Status.FAILED)
SENDING = Delivery.Status.SENDING


def waiting(target_url: str, now: datetime) -> Q:
    """Due rows of one target waiting for an attempt (index delivery_waiting_by_target)."""
    return Q(target_url=target_url, status__constant_in=WAITING, next_attempt_at__lte=now)


def stuck(target_url: str, lease_cutoff: datetime) -> Q:
    """Rows of one target held by a claim older than the lease, as their worker died
    (index delivery_sending_by_target)."""
    return Q(target_url=target_url, status__constant_in=(SENDING,), claimed_at__lt=lease_cutoff)


# What a claim reads of each delivery and of its registered webhook (read at claim time, so a patch,
# a rotation or a resend applies from the next batch on).
# fmt: off
_CLAIMED = (
    "pk", "kind", "webhook_id", "target_url", "payload", "dispatch_id", "timeout_seconds", "attempt_count",
    "max_attempts", "next_attempt_at", "resend_pending", "resend_requested_by_id", "request_id", "created_at",
    "webhook__secret", "webhook__previous_secret", "webhook__previous_secret_expires_at", "webhook__headers",
    "webhook__rate_limit", "webhook__retry_schedule", "webhook__ordering",
)
# fmt: on


def claimed_of(row: dict[str, Any], now: datetime) -> Claimed:
    """A claimed delivery from its row: the webhook's previous secret while a rotation's overlap lasts
    (webhooks.registered.rotation)."""
    expires = row["webhook__previous_secret_expires_at"]
    return Claimed(
        pk=row["pk"],
        kind=row["kind"],
        webhook_id=row["webhook_id"],
        secret=row["webhook__secret"],
        previous_secret=(row["webhook__previous_secret"] or "") if expires and expires > now else "",
        headers=row["webhook__headers"] or {},
        target_url=row["target_url"],
        payload=row["payload"],
        dispatch_id=row["dispatch_id"],
        timeout_seconds=row["timeout_seconds"],
        attempt_count=row["attempt_count"],
        max_attempts=row["max_attempts"],
        scheduled_at=row["next_attempt_at"],
        resend_pending=bool(row["resend_pending"]),
        resend_requested_by_id=row["resend_requested_by_id"],
        request_id=row["request_id"],
        created_at=row["created_at"],
        rate_limit=row["webhook__rate_limit"],
        retry_schedule=row["webhook__retry_schedule"],
        fifo=row["webhook__ordering"] == Webhook.Ordering.FIFO,
    )


class OrmStore:
    """webhooks.outbox.store.DeliveryStore through the ORM."""

    event_insert_is_atomic = False

    # --- emit() ----------------------------------------------------------------------------------

    def session_targets(self, session_id: Any) -> Targets:
        """One query: the session with its instance webhook's switch and, joined, its registered
        webhooks, oldest first (one row with NULLs when it has none)."""
        session_model = Event._meta.get_field("session").related_model
        instance_on = InstanceWebhookConfig.objects.filter(session=OuterRef("pk"), allow_webhook=True)
        hook = ("id", "url", "events", "retry_count", "retry_schedule", "filter", "ordering", "status")
        rows = list(
            session_model.objects.filter(pk=session_id)
            .order_by("webhooks__created_at", "webhooks__id")
            .values_list("account_id", Exists(instance_on), *(f"webhooks__{name}" for name in hook))
        )
        webhooks = tuple(
            (
                hook_id,
                url,
                tuple(events),
                schedule_attempts(retry_schedule, retry_count),
                status == Webhook.Status.ACTIVE,  # a disabled one's are written held (outbox.disable)
                conditions,
                ordering == Webhook.Ordering.FIFO,
            )
            for hook_id, url, events, retry_count, retry_schedule, conditions, ordering, status in [
                row[2:] for row in rows if row[2] is not None
            ]
        )
        account_id, instance_webhooks_enabled = rows[0][:2] if rows else (None, False)
        return Targets(bool(instance_webhooks_enabled), account_id, webhooks)

    def next_sequence(self, session_id: Any, chat: str) -> int:
        """Raise the (session, chat) counter and return its new value; a first event makes it 1. The
        UPDATE's row lock keeps the chat's next event waiting until this one's transaction ends."""
        counter = EventSequence.objects.filter(session_id=session_id, chat=chat)
        if not counter.update(last=F("last") + 1):
            try:
                with transaction.atomic():
                    EventSequence.objects.create(session_id=session_id, chat=chat, last=1)
                return 1
            except IntegrityError:  # another event of a new chat created it first
                counter.update(last=F("last") + 1)
        return counter.values_list("last", flat=True).get()

    def event_insert(
        self, event: Model, deliveries: list[Model], *, numbered: Callable[[Model], None] | None = None
    ) -> None:
        event.sequence = self.next_sequence(event.session_id, event.chat)
        if numbered is not None:
            numbered(event)
        event.save(force_insert=True)
        if deliveries:
            Delivery.objects.bulk_create(deliveries)

    # --- The worker ------------------------------------------------------------------------------

    def claim(
        self, target_url: str, *, limit: int, token: str, now: datetime, lease_cutoff: datetime
    ) -> list[Claimed]:
        """Waiting and stuck rows are looked up apart, each on its own partial index (one condition with
        OR made PostgreSQL merge bitmaps over the whole target range, docs/decisions/0002)."""
        with transaction.atomic():
            picked: list[tuple[datetime, int]] = []
            for condition in (waiting(target_url, now), stuck(target_url, lease_cutoff)):
                rows = Delivery.objects.filter(condition).select_for_update(skip_locked=True, of=("self",))
                locked = rows.order_by("next_attempt_at", "pk")
                picked += [(due, pk) for pk, due in locked.values_list("pk", "next_attempt_at")[:limit]]
            ids = [pk for _due, pk in sorted(picked)[:limit]]
            if not ids:
                return []
            # Without row locks (SQLite serialises writers) the condition is repeated on the rows updated.
            claimable = waiting(target_url, now) | stuck(target_url, lease_cutoff)
            Delivery.objects.filter(claimable, pk__in=ids).update(
                status=SENDING, claimed_at=now, claim_token=token
            )
            rows = Delivery.objects.filter(pk__in=ids, claim_token=token).order_by("next_attempt_at", "pk")
            return [claimed_of(row, now) for row in rows.values(*_CLAIMED)]

    def unclaim(self, ids: list[int], *, token: str, status: str) -> None:
        if ids:
            Delivery.objects.filter(claim_token=token, pk__in=ids).update(
                status=status, claimed_at=None, claim_token=""
            )

    def due_exists(self, target_url: str, *, now: datetime, lease_cutoff: datetime) -> bool:
        due = Delivery.objects.filter(waiting(target_url, now)).exists()
        return due or Delivery.objects.filter(stuck(target_url, lease_cutoff)).exists()

    def delivery_hint(self, delivery_id: int) -> tuple[str, str] | None:
        row = Delivery.objects.filter(pk=delivery_id).order_by().values_list("status", "target_url")[:1]
        return next(iter(row), None)

    def sweepable(self, which: str, *, before: datetime, limit: int) -> list[tuple[int, str]]:
        """(id, target) of `overdue` deliveries (waiting, due before `before`; index delivery_waiting)
        or `stuck` ones (claimed before `before`; index delivery_sending), oldest first."""
        if which == "overdue":
            rows = Delivery.objects.filter(status__constant_in=WAITING, next_attempt_at__lte=before)
            rows = rows.order_by("next_attempt_at")
        else:
            rows = Delivery.objects.filter(status__constant_in=(SENDING,), claimed_at__lte=before)
            rows = rows.order_by("claimed_at")
        return list(rows.values_list("pk", "target_url")[:limit])

    def record_batch_counted(
        self,
        states: list[tuple[int, Outcome]],
        attempts: list[Model],
        *,
        token: str,
        now: datetime,
        webhooks: dict[int, str | None],
    ) -> tuple[set[int], list[HookCount]]:
        if not states:
            return set(), []
        with transaction.atomic():
            mine = Delivery.objects.filter(pk__in=[pk for pk, _ in states], claim_token=token)
            held = set(mine.select_for_update().values_list("pk", flat=True))
            written = [(pk, outcome) for pk, outcome in states if pk in held]
            if written:
                DeliveryAttempt.objects.bulk_create([a for a in attempts if a.delivery_id in held])
                Delivery.objects.filter(pk__in=held).update(**outcome_columns(written, now))
            counts = failures_count(written, webhooks, now)
        return held, counts


def _per_row(column: str, values: Iterable[tuple[int, Any]], *, keep: bool = False) -> Case:
    """One column's new value per delivery id; with `keep`, a None leaves what the row had."""
    field: Field = Delivery._meta.get_field(column)
    whens = [
        When(pk=pk, then=Value(value, output_field=field))
        for pk, value in values
        if value is not None or not keep
    ]
    return Case(*whens, default=F(column), output_field=field)


def outcome_columns(written: list[tuple[int, Outcome]], now: datetime) -> dict[str, Any]:
    """The UPDATE of a batch's deliveries: each one's outcome, its claim released."""
    return {
        "status": _per_row("status", [(pk, o.status) for pk, o in written]),
        "attempt_count": _per_row("attempt_count", [(pk, o.attempt_count) for pk, o in written]),
        "last_status_code": _per_row("last_status_code", [(pk, o.last_status_code) for pk, o in written]),
        "last_error": _per_row("last_error", [(pk, o.last_error) for pk, o in written]),
        "delivered_at": _per_row("delivered_at", [(pk, o.delivered_at) for pk, o in written], keep=True),
        "dead_at": _per_row("dead_at", [(pk, o.dead_at) for pk, o in written], keep=True),
        "next_attempt_at": _per_row(
            "next_attempt_at", [(pk, o.next_attempt_at) for pk, o in written], keep=True
        ),
        "claimed_at": None,
        "claim_token": "",
        "resend_pending": False,
        "updated_at": now,
    }


def failures_count(
    written: list[tuple[int, Outcome]], webhooks: dict[int, str | None], now: datetime
) -> list[HookCount]:
    """Keep each registered webhook's failure count (webhooks.outbox.disable): a delivered attempt in the
    batch resets it, else the batch's failed attempts are added and `failing_since` set if it was not.
    `webhooks`: delivery id -> webhook id; instance deliveries have none and are left out."""
    per_hook: dict[str, tuple[bool, int]] = {}
    for pk, outcome in written:
        hook_id = webhooks.get(pk)
        if hook_id:
            ok, failed = per_hook.get(hook_id, (False, 0))
            per_hook[hook_id] = (ok or outcome.status == Delivery.Status.DELIVERED, failed + 1)
    for hook_id, (ok, failed) in per_hook.items():
        hooks = Webhook.objects.filter(pk=hook_id)
        if ok:
            hooks.update(failed_attempts=0, failing_since=None)
        else:
            since = Coalesce("failing_since", Value(now, output_field=DateTimeField()))
            hooks.update(failed_attempts=F("failed_attempts") + failed, failing_since=since)
    rows = Webhook.objects.filter(pk__in=list(per_hook))
    return list(rows.values_list("pk", "failing_since", "failed_attempts"))
