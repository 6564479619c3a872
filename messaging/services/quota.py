"""The plan's daily message quota: per account, per calendar day in MESSAGING_QUOTA_TIME_ZONE.

Taken in one statement: an upsert of the day's row that adds one only while the count is under the
plan's limit, and returns the new count (nothing when the limit is reached). PostgreSQL re-checks the
condition on the row as it is once a concurrent send commits, so concurrent sends of one account never
overshoot. An API send takes it on its own, committed at once, so the account's row is not locked across
the engine's round trip (`quota_held`: given back if the engine fails; a process killed between the two
keeps one message counted that was never sent, the safe side). Inside a caller's transaction it is part
of that transaction, and a send that fails later rolls its count back with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection
from django.db.models import F
from django.utils import timezone

from accounts.models import Account
from core.errors import RateLimited
from messaging.models import DailyMessageCount


def quota_day_bounds(now: datetime) -> tuple[datetime, datetime]:
    """Start of today and of tomorrow in the quota's time zone."""
    local = now.astimezone(ZoneInfo(settings.MESSAGING_QUOTA_TIME_ZONE))
    start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    # Aware arithmetic with a ZoneInfo is wall-clock arithmetic: this is the next local midnight.
    return start, start + timedelta(days=1)


def messages_sent_today(account: Account, now: datetime | None = None) -> int:
    start, _ = quota_day_bounds(now or timezone.now())
    row = DailyMessageCount.objects.filter(account=account, day=start.date()).first()
    return row.count if row else 0


def _count_one(account_id: int, day: date, limit: int | None) -> bool:
    """Add one to the account's day, unless `limit` is reached; whether it was added. Same SQL on
    PostgreSQL and SQLite (both have INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING)."""
    table = connection.ops.quote_name(DailyMessageCount._meta.db_table)
    count = connection.ops.quote_name("count")
    sql = (
        f"INSERT INTO {table} (account_id, day, {count}) VALUES (%s, %s, 1) "  # noqa: S608 (names from the model)
        f"ON CONFLICT (account_id, day) DO UPDATE SET {count} = {table}.{count} + 1"
    )
    params: list[object] = [account_id, connection.ops.adapt_datefield_value(day)]
    if limit is not None:
        sql += f" WHERE {table}.{count} < %s"
        params.append(limit)
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} RETURNING {count}", params)
        return cursor.fetchone() is not None


def _give_back(account_id: int, day: date) -> None:
    """Take back one message counted on the account's day (a send whose engine refused or failed)."""
    DailyMessageCount.objects.filter(account_id=account_id, day=day, count__gt=0).update(count=F("count") - 1)


def quota_take(*, account: Account) -> date:
    """Count one message against the plan's messages/day; the quota's day it was counted on. 429 with
    retryAfter until midnight when the quota is used up. Unlimited plans count too (the account area
    shows the day's figure)."""
    now = timezone.now()
    start, tomorrow = quota_day_bounds(now)
    limit = account.plan.messages_per_day
    if (limit is None or limit > 0) and _count_one(account.pk, start.date(), limit):
        return start.date()
    raise RateLimited(
        f"The {account.plan.name} plan allows {limit} messages a day; the quota resets at midnight "
        f"({settings.MESSAGING_QUOTA_TIME_ZONE}).",
        retry_after=int((tomorrow - now).total_seconds()) + 1,
        extra={"limit": limit},
    )


@contextmanager
def quota_held(*, account: Account) -> Iterator[None]:
    """Outside any transaction: take the quota (committed at once, its row lock released with the
    statement), and give it back if the block raises (the engine refused or failed to send)."""
    day = quota_take(account=account)
    try:
        yield
    except BaseException:
        _give_back(account.pk, day)
        raise
