"""The deliveries' job stores side by side: CPU per operation of the ORM's store and the one-statement store.

    DATABASE_URL=postgres://... .venv/bin/python bench/store.py [--rounds 200]

In one process, on what DATABASE_URL points at (the one-statement store needs PostgreSQL; on SQLite only
the ORM's runs), rounds of: emit() 16 events of one chat to a webhook, is anything due, claim the batch,
record it delivered with its attempts, the hint's lookup. The stores take turns round by round, so a busy
machine weighs on both alike. Per operation: the median CPU of this thread (Python: building, adapting,
reading) and of the database's backend process for this connection (PostgreSQL: parsing, planning,
executing; read from /proc in clock ticks, so its mean). CPU times, not wall
times: they are what the operations cost wherever the machine's other work falls.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from retention import setup  # noqa: E402  (the bench environment, migrated)

TARGET = "http://127.0.0.1:9/bench-store"
BATCH = 16
OPERATIONS = ("emit", "due", "claim", "record", "hint")


def backend_cpu() -> float:
    """Seconds of CPU the database's process for this connection has used (0 off PostgreSQL)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return 0.0
    if not hasattr(backend_cpu, "pid"):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backend_cpu.pid = cursor.fetchone()[0]  # type: ignore[attr-defined]
    fields = Path(f"/proc/{backend_cpu.pid}/stat").read_text().rsplit(")", 1)[1].split()  # type: ignore[attr-defined]
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Costs:
    def __init__(self) -> None:
        self.python: dict[str, list[float]] = defaultdict(list)
        self.database: dict[str, list[float]] = defaultdict(list)

    def measure(self, name: str, call, per: int = 1):
        python, database = time.thread_time(), backend_cpu()
        result = call()
        python, database = time.thread_time() - python, backend_cpu() - database
        self.python[name].append(python * 1000 / per)
        self.database[name].append(database * 1000 / per)
        return result


def one_round(costs: Costs, session_id, chat: str) -> None:
    from django.utils import timezone

    from webhooks.models import DeliveryAttempt
    from webhooks.outbox import deliveries as outbox
    from webhooks.outbox.store import Outcome, store
    from webhooks.services import emit

    def emit_batch() -> None:
        for index in range(BATCH):
            emit(session_id=session_id, name="message", data={"id": f"S{index}", "text": "hi"}, chat=chat)

    costs.measure("emit", emit_batch, per=BATCH)
    costs.measure("due", lambda: outbox.due_exists(TARGET))
    token, batch = costs.measure("claim", lambda: outbox.deliveries_claim(TARGET, limit=BATCH))
    assert len(batch) == BATCH, f"claimed {len(batch)} of {BATCH}"
    now = timezone.now()
    states = [(d.pk, Outcome("delivered", 1, 200, "", delivered_at=now)) for d in batch]
    attempts = [
        DeliveryAttempt(
            delivery_id=d.pk, number=1, scheduled_at=d.scheduled_at, status_code=200, outcome="delivered"
        )
        for d in batch
    ]
    costs.measure(
        "record",
        lambda: store().record_batch_counted(states, attempts, token=token, now=timezone.now(), webhooks={}),
    )
    costs.measure("hint", lambda: store().delivery_hint(batch[0].pk))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    import os

    os.environ.setdefault("PONTE_VAR_DIR", tempfile.mkdtemp(prefix="ponte-store-"))
    setup()
    from django.conf import settings
    from django.db import connection

    from accounts.models import Plan
    from accounts.services import account_create
    from messaging.models import Session
    from webhooks.models import Webhook

    settings.DEBUG = False
    names = ["orm", "postgresql"] if connection.vendor == "postgresql" else ["orm"]
    account = account_create(
        name=f"store-bench-{uuid.uuid4().hex[:8]}", plan=Plan.objects.get(name="Empresarial")
    )
    session = Session.objects.create(account=account, name="store")
    Webhook.objects.create(account=account, session=session, url=TARGET, events=["message"])
    costs = {name: Costs() for name in names}
    for number in range(args.rounds + 5):
        for name in names:
            settings.PONTE_OUTBOX_STORE = name
            one_round(costs[name] if number >= 5 else Costs(), session.id, chat=f"{name}-chat")  # 5 to warm
    print(f"job stores: {args.rounds} rounds of {BATCH} events, {connection.vendor}")
    print("  ms of CPU: py = this thread's (median), db = the database backend's (mean)")
    print(f"  {'operation':<24}" + "".join(f"{name:>24}" for name in names))
    for operation in OPERATIONS:
        cells = []
        for name in names:
            c = costs[name]
            python, database = (
                statistics.median(c.python[operation]),
                statistics.median(c.database[operation]),
            )
            cells.append(f"py {python:7.3f}  db {database:6.3f}")
        per = "per event" if operation == "emit" else "per batch"
        print(f"  {operation + ' (' + per + ')':<24}" + "".join(f"{cell:>24}" for cell in cells))


if __name__ == "__main__":
    main()
