"""Retention benchmark: the hot path's statements with 0 and with 1,000,000 old delivered rows, and the
purge that removes them.

    .venv/bin/python bench/retention.py [--rows 1000000] [--rounds 150]

Runs on DATABASE_URL (PostgreSQL: old rows bulk-inserted with generate_series) or, without it, a
throw-away SQLite file (a recursive CTE). No HTTP and no worker: each round emit()s a batch of events on a
session whose webhook points at one target, then times the worker's statements on that target exactly as
a drain runs them (webhooks.outbox.store: is anything due, claim a batch with one UPDATE ... RETURNING,
record the
outcomes) and the sweeper's query. The old rows sit on the same session, conversation set and target URL,
the worst case for the indexes.

Phases: (1) empty tables; (2) after inserting `--rows` delivered deliveries 30 days old, each with its
event and one attempt; (3) while the purge deletes them (webhooks.outbox.retention, in another thread):
the hot
path must not wait on it; (4) after the purge. Prints median and p95 per statement and the ratios to (1).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = "http://127.0.0.1:9/bench-retention"
BATCH = 16
OLD_CHATS = 1000


def setup() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="ponte-retention-"))
    os.environ.setdefault("PONTE_VAR_DIR", str(tmp))
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
    os.environ["PONTE_WEBHOOK_ALLOW_NETWORKS"] = "127.0.0.0/8"
    os.environ["LOG_LEVEL"] = "WARNING"
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("DB_CONN_MAX_AGE", "60")
    os.environ.setdefault("SECRET_KEY", uuid.uuid4().hex * 2)
    os.environ.setdefault("PONTE_SECRET_KEYS", "YmVuY2gtb25seS1rZXktbm90LXVzZWQtYW55d2hlcmU=")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # Hints are published once per target per 10 s at most; without a broker they just fail and log.
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


# --- Old rows --------------------------------------------------------------------------------------


def bulk_insert_old(session_id, webhook_id: str, rows: int, tag: str) -> float:
    """Insert `rows` delivered deliveries (30 days old) with their events and attempts; seconds taken."""
    from django.db import connection, transaction
    from django.utils import timezone

    old = timezone.now() - timedelta(days=30)
    chunk = 100_000
    started = time.monotonic()
    postgres = connection.vendor == "postgresql"
    # A first small chunk, then ANALYZE and a new connection: the foreign-key checks run at commit with
    # plans made from the tables' statistics, and statistics of empty tables make them scan.
    starts = [0, *range(min(1000, rows), rows, chunk)]
    for number, start in enumerate(starts):
        count = (starts[number + 1] if number + 1 < len(starts) else rows) - start
        if number == 1:
            with connection.cursor() as cursor:
                for name in ("webhooks_event", "webhooks_delivery", "webhooks_deliveryattempt"):
                    cursor.execute(f"ANALYZE {name}")
            connection.close()
        params = {"start": start, "stop": start + count - 1, "tag": tag, "session": session_id.hex}
        params |= {"webhook": webhook_id, "target": TARGET, "chats": OLD_CHATS}
        with transaction.atomic(), connection.cursor() as cursor:
            if postgres:
                params |= {"old": old, "session": session_id}
                series = "generate_series(%(start)s, %(stop)s) AS i"
                event_id = "(%(tag)s || lpad(to_hex(i), 24, '0'))::uuid"
                at = "%(old)s + i * interval '1 millisecond'"
                cursor.execute(
                    "INSERT INTO webhooks_event (id, name, data, chat, sequence, event_ms, received_at_ms,"
                    " created_at, session_id)"
                    f' SELECT {event_id}, \'message\', \'{{"id": "old", "text": "an old message"}}\','
                    " 'old-' || (i %% %(chats)s), i / %(chats)s + 1, 0, 0,"
                    f" {at}, %(session)s FROM {series}",
                    params,
                )
                cursor.execute(
                    "INSERT INTO webhooks_delivery (dispatch_id, kind, target_url, payload, status,"
                    " max_attempts, timeout_seconds, attempt_count, next_attempt_at, claim_token,"
                    " last_status_code, last_error, delivered_at, resend_pending, created_at, updated_at,"
                    " event_id, session_id, webhook_id, request_id)"
                    " SELECT 'msg_old_' || %(tag)s || i, 'registered', %(target)s,"
                    ' \'{"event": "message", "data": {"text": "an old message"}}\', \'delivered\','
                    f" 5, 10, 1, {at}, '', 200, '', {at}, false, {at}, {at},"
                    f" {event_id}, %(session)s, %(webhook)s, '' FROM {series}",
                    params,
                )
            else:
                stamp = old.strftime("%Y-%m-%d %H:%M:%S.%f")
                params |= {"old": stamp}
                series = (
                    "(WITH RECURSIVE s(i) AS (SELECT %(start)s UNION ALL SELECT i + 1 FROM s"
                    " WHERE i < %(stop)s) SELECT i FROM s)"
                )
                event_id = "%(tag)s || printf('%%024x', i)"
                cursor.execute(
                    "INSERT INTO webhooks_event (id, name, data, chat, sequence, event_ms, received_at_ms,"
                    " created_at, session_id)"
                    f" SELECT {event_id}, 'message', '{{\"id\": \"old\"}}', 'old-' || (i %% %(chats)s),"
                    f" i / %(chats)s + 1, 0, 0, %(old)s, %(session)s FROM {series}",
                    params,
                )
                cursor.execute(
                    "INSERT INTO webhooks_delivery (dispatch_id, kind, target_url, payload, status,"
                    " max_attempts, timeout_seconds, attempt_count, next_attempt_at, claim_token,"
                    " last_status_code, last_error, delivered_at, resend_pending, created_at, updated_at,"
                    " event_id, session_id, webhook_id, request_id)"
                    " SELECT 'msg_old_' || %(tag)s || i, 'registered', %(target)s,"
                    " '{\"event\": \"message\"}', 'delivered', 5, 10, 1, %(old)s, '', 200, '',"
                    " %(old)s, 0, %(old)s, %(old)s,"
                    f" {event_id}, %(session)s, %(webhook)s, '' FROM {series}",
                    params,
                )
            cursor.execute(
                "INSERT INTO webhooks_deliveryattempt (number, scheduled_at, started_at, finished_at,"
                " status_code, duration_ms, response_excerpt, error, outcome, delivery_id)"
                " SELECT 1, created_at, created_at, created_at, 200, 3, 'ok', '', 'delivered', id"
                " FROM webhooks_delivery WHERE id > (SELECT COALESCE(MAX(delivery_id), 0)"
                " FROM webhooks_deliveryattempt) AND dispatch_id LIKE %(like)s",
                {"like": f"msg_old_{tag}%"},
            )
        print(
            f"    inserted {start + count:>9,} old deliveries ({time.monotonic() - started:.0f} s)",
            flush=True,
        )
    with connection.cursor() as cursor:
        for name in ("webhooks_event", "webhooks_delivery", "webhooks_deliveryattempt"):
            cursor.execute(f"ANALYZE {name}")
    return time.monotonic() - started


# --- The hot path --------------------------------------------------------------------------------


class Timings:
    def __init__(self) -> None:
        self.samples: dict[str, list[float]] = {}

    def time(self, name: str, call):
        began = time.perf_counter()
        result = call()
        self.samples.setdefault(name, []).append((time.perf_counter() - began) * 1000)
        return result

    def median(self, name: str) -> float:
        return statistics.median(self.samples[name])

    def p95(self, name: str) -> float:
        ordered = sorted(self.samples[name])
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


STATEMENTS = ("emit", "due", "claim", "record", "sweep")


def hot_rounds(session_id, rounds: int, stop: threading.Event | None = None) -> Timings:
    """Each round: emit a batch of events (one delivery each, to TARGET), then run a drain's statements
    on them and the sweeper's query. Per statement: ms per call (emit: per event)."""
    from django.utils import timezone

    from webhooks.outbox import deliveries as outbox
    from webhooks.outbox.store import Outcome, store
    from webhooks.services import emit

    timings = Timings()
    done = 0
    while done < rounds or (stop is not None and not stop.is_set()):
        for index in range(BATCH):
            timings.time(
                "emit",
                lambda index=index: emit(
                    session_id=session_id,
                    name="message",
                    data={"id": f"N{index}", "text": "hi"},
                    chat=f"old-{index}",
                ),
            )
        timings.time("due", lambda: outbox.due_exists(TARGET))
        token, batch = timings.time("claim", lambda: outbox.deliveries_claim(TARGET, limit=BATCH))
        assert len(batch) == BATCH, f"claimed {len(batch)} of {BATCH}"
        now = timezone.now()
        states = [(d.pk, Outcome("delivered", 1, 200, "", delivered_at=now)) for d in batch]

        def record(states=states, token=token) -> None:
            store().record_batch_counted(states, [], token=token, now=timezone.now(), webhooks={})

        timings.time("record", record)
        timings.time("sweep", lambda: outbox.deliveries_sweep())
        done += 1
    return timings


def claim_buffers(session_id) -> int | None:
    """PostgreSQL: the buffers (8 kB pages, hit or read) one claim of a batch touches, from EXPLAIN
    (ANALYZE, BUFFERS) in a transaction rolled back: a count the machine's load does not change."""
    import json

    from django.db import connection, transaction
    from django.utils import timezone

    from webhooks.outbox import store_pg
    from webhooks.services import emit

    if connection.vendor != "postgresql":
        return None
    with transaction.atomic():
        for index in range(BATCH):
            emit(session_id=session_id, name="message", data={"id": f"B{index}"}, chat=f"old-{index}")
        now = timezone.now()
        params = {
            "target": TARGET,
            "now": now,
            "lease_cutoff": now - timedelta(seconds=8),
            "sending": "sending",
            "token": "explain",
            "limit": BATCH,
        }
        with connection.cursor() as cursor:
            statement = store_pg._claim_sql()  # the one-statement store's claim (webhooks.outbox.store_pg)
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + statement, params)
            plan = cursor.fetchone()[0]
            plan = json.loads(plan) if isinstance(plan, str) else plan
        transaction.set_rollback(True)
    top = plan[0]["Plan"]
    return int(top.get("Shared Hit Blocks", 0)) + int(top.get("Shared Read Blocks", 0))


def report(label: str, timings: Timings, base: Timings | None) -> None:
    parts = []
    for name in STATEMENTS:
        ratio = f" ({timings.median(name) / base.median(name):.2f}x)" if base else ""
        parts.append(f"{name} {timings.median(name):5.2f}/{timings.p95(name):5.2f}{ratio}")
    print(f"  {label:<28} " + "  ".join(parts), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="old delivered deliveries")
    parser.add_argument("--rounds", type=int, default=150, help=f"rounds of {BATCH} events per phase")
    args = parser.parse_args()
    setup()
    from django.db import connection

    from accounts.models import Account, Plan
    from accounts.services import account_create
    from messaging.models import Session
    from webhooks.models import Webhook
    from webhooks.outbox import retention

    account = account_create(name=f"bench-{uuid.uuid4().hex[:8]}", plan=Plan.objects.get(name="Empresarial"))
    session = Session.objects.create(account=account, name="retention")
    hook = Webhook.objects.create(account=account, session=session, url=TARGET, events=["message"])
    db = "PostgreSQL" if connection.vendor == "postgresql" else "SQLite"
    print(f"retention bench: {args.rows:,} old rows, {args.rounds} rounds of {BATCH} events, {db}")
    print(
        "  the timings move with the machine's load (2 cores shared with other jobs): the pages a claim"
        " touches do not"
    )
    print(
        "  per statement, ms median/p95 (ratio of medians to empty tables); emit per event,"
        f" the others per batch of {BATCH}"
    )
    try:
        hot_rounds(session.id, 10)  # warm up
        empty = hot_rounds(session.id, args.rounds)
        report("empty tables", empty, None)
        buffers = {"empty": claim_buffers(session.id)}
        seconds = bulk_insert_old(session.id, hook.id, args.rows, uuid.uuid4().hex[:8])
        print(f"    ({args.rows:,} deliveries, events and attempts inserted in {seconds:.0f} s)")
        full = hot_rounds(session.id, args.rounds)
        report(f"{args.rows:,} old rows", full, empty)
        buffers["full"] = claim_buffers(session.id)

        stop = threading.Event()
        outcome: dict = {}

        def purge() -> None:
            try:
                outcome["totals"] = retention.deliveries_purge(kept_for=timedelta(days=7))
            finally:
                connection.close()
                stop.set()

        purger = threading.Thread(target=purge, daemon=True)
        purger.start()
        during = hot_rounds(session.id, 1, stop=stop)
        purger.join()
        report("while purging", during, empty)
        totals = outcome["totals"]
        rate = (totals.delivered + totals.attempts + totals.events) / totals.seconds
        print(
            f"    purge: {totals.delivered:,} deliveries, {totals.attempts:,} attempts,"
            f" {totals.events:,} events in {totals.batches} batches of <= {totals.largest_batch},"
            f" {totals.seconds:.1f} s ({rate:,.0f} rows/s)"
        )
        after = hot_rounds(session.id, args.rounds)
        report("after the purge", after, empty)
        buffers["after"] = claim_buffers(session.id)
        if buffers["empty"] is not None:
            print(
                f"  pages one claim of {BATCH} touches (EXPLAIN BUFFERS): empty {buffers['empty']},"
                f" {args.rows:,} old rows {buffers['full']}, after the purge {buffers['after']}"
            )
        print(
            f"  claim cost, {args.rows:,} old rows / empty:"
            f" {full.median('claim') / empty.median('claim'):.2f} (target: flat, about 1)"
        )
    finally:
        with connection.cursor() as cursor:  # by SQL: the ORM's cascade would load every old row
            cursor.execute(
                "DELETE FROM webhooks_deliveryattempt WHERE delivery_id IN"
                " (SELECT id FROM webhooks_delivery WHERE session_id = %s)",
                [session.id.hex if connection.vendor == "sqlite" else session.id],
            )
            for name in ("webhooks_delivery", "webhooks_event"):
                cursor.execute(
                    f"DELETE FROM {name} WHERE session_id = %s",
                    [session.id.hex if connection.vendor == "sqlite" else session.id],
                )
        Account.objects.filter(pk=account.pk).delete()


if __name__ == "__main__":
    main()
