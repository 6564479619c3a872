"""How the instance-webhook statistics scale with the outbox's size.

Times `instance_statistics()` for one session with 1,000 deliveries (2,000 attempts) in its 7-day window,
first alone in the outbox, then with 100,000 deliveries of 100 other sessions (and the session's own
older weeks) around it, and prints the ratio (target >= 0.5: the indexed queries read the session's own
rows, not the whole table). A third figure adds 100,000 more rows of the same session (registered-webhook
deliveries and rows older than 7 days), a skew that misleads PostgreSQL's estimates. Also prints the
query count (the view adds one for the session and its configuration).

    .venv/bin/python bench/instance_statistics.py            # a throwaway SQLite file under var/
    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/ponte_bench \
        .venv/bin/python bench/instance_statistics.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
(BASE_DIR / "var").mkdir(exist_ok=True)
default_db = f"sqlite:///{BASE_DIR / 'var' / 'bench_instance_statistics.sqlite3'}"
os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL") or default_db
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

from accounts.models import Account, Plan  # noqa: E402
from messaging.models import Session  # noqa: E402
from webhooks.instance.statistics import instance_statistics  # noqa: E402
from webhooks.models import Delivery, DeliveryAttempt, Event  # noqa: E402

OWN = 1_000
OTHERS = 100_000
BATCH = 5_000


def _fill(
    session: Session, count: int, *, kind: str, age: timedelta = timedelta(0), attempts: int = 2
) -> None:
    now = timezone.now() - age
    event = Event.objects.create(session=session, name="message", data={}, event_ms=0, received_at_ms=0)
    for start in range(0, count, BATCH):
        size = min(BATCH, count - start)
        deliveries = Delivery.objects.bulk_create(
            Delivery(
                kind=kind,
                event=event,
                session=session,
                target_url="https://hooks.example.com/x",
                payload={},
                status=Delivery.Status.DELIVERED,
                attempt_count=attempts,
                created_at=now,
            )
            for _ in range(size)
        )
        if connection.vendor == "sqlite" or deliveries[0].pk is None:
            # SQLite before RETURNING support: read the ids back.
            deliveries = list(Delivery.objects.filter(event=event).order_by("-id")[:size])
        DeliveryAttempt.objects.bulk_create(
            DeliveryAttempt(
                delivery=delivery,
                number=number,
                scheduled_at=now,
                started_at=now,
                finished_at=now,
                status_code=200 if number == attempts else 503,
                duration_ms=12,
                outcome="delivered" if number == attempts else "retry",
            )
            for delivery in deliveries
            for number in range(1, attempts + 1)
        )


def _time(session: Session, runs: int = 30) -> tuple[float, int]:
    instance_statistics(session=session)  # warm up
    samples = []
    with CaptureQueriesContext(connection) as queries:
        instance_statistics(session=session)
    for _ in range(runs):
        started = time.perf_counter()
        instance_statistics(session=session)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples), len(queries)


def main() -> None:
    call_command("migrate", verbosity=0)
    account = Account.objects.create(name=f"bench-{uuid.uuid4().hex[:8]}", plan=Plan.objects.first())
    try:
        own = Session.objects.create(account=account, name="own")
        _fill(own, OWN, kind=Delivery.Kind.INSTANCE)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        alone, query_count = _time(own)

        # Realistic crowd: 100 other sessions, half registered-webhook and half instance deliveries,
        # plus the session's own previous weeks.
        for n in range(100):
            other = Session.objects.create(account=account, name=f"other-{n}")
            _fill(other, OTHERS // 200, kind=Delivery.Kind.INSTANCE, attempts=1)
            _fill(other, OTHERS // 200, kind=Delivery.Kind.REGISTERED, attempts=1)
        _fill(own, OWN * 3, kind=Delivery.Kind.INSTANCE, age=timedelta(days=8))
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # fresh planner statistics, as autovacuum keeps them in production
        crowded, _ = _time(own)
        # Adversarial: the same session also holds most of the table (its registered-webhook deliveries
        # and older weeks), which misleads the planner's independent-column estimates.
        _fill(own, OTHERS // 2, kind=Delivery.Kind.REGISTERED, attempts=1)
        _fill(own, OTHERS // 2, kind=Delivery.Kind.INSTANCE, age=timedelta(days=8), attempts=1)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        skewed, _ = _time(own)
        data = instance_statistics(session=own)
        assert data["delivery"]["attempts"] == OWN * 2, data["delivery"]
    finally:
        account.delete()

    print(f"database: {connection.vendor}; queries per call: {query_count}")
    print(f"statistics, {OWN} own deliveries alone:            {alone * 1000:8.2f} ms (median)")
    print(f"statistics, + {OTHERS} rows of 100 other sessions: {crowded * 1000:8.2f} ms (median)")
    print(f"statistics, + {OTHERS} more rows of the same session: {skewed * 1000:8.2f} ms (median)")
    print(f"ratio alone/crowded: {alone / crowded:.2f} (target >= 0.5)")
    print(f"ratio alone/skewed:  {alone / skewed:.2f} (adversarial; reported, no target)")


if __name__ == "__main__":
    main()
