"""The session read of every send and inbound event and a send's message row, two ways each: the ORM's
`get()` and `bulk_create(update_conflicts=True)`, and core.compiled's statements (docs/decisions/0037).

    DATABASE_URL=postgres://... .venv/bin/python bench/compiled_statements.py [--calls 3000] [--rounds 3]

In one process, on what DATABASE_URL points at (a throw-away SQLite file without it): a session row, then
rounds of `--calls` reads of it each way and `--calls` messages written each way, taking turns so a busy
machine weighs on both alike, and the read's statement run bare through Django's cursor (the floor: the
round trip and the row, no ORM). It prints this thread's CPU per call (time.thread_time) and the ratio
compiled ÷ ORM per round.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retention import setup


def per_call_ms(call: Callable[[], object], calls: int) -> float:
    call()
    started = time.thread_time()
    for _ in range(calls):
        call()
    return (time.thread_time() - started) * 1000 / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("PONTE_VAR_DIR", tempfile.mkdtemp(prefix="ponte-compiled-"))
    setup()
    from django.conf import settings
    from django.db import connection
    from django.utils import timezone

    from accounts.models import Plan
    from accounts.services import account_create
    from core.compiled import CompiledGet, CompiledUpsert
    from messaging.models import Message, Session

    settings.DEBUG = False  # DEBUG keeps every statement: not how a production process runs
    account = account_create(
        name=f"compiled-bench-{uuid.uuid4().hex[:8]}", plan=Plan.objects.get(name="Empresarial")
    )
    session = Session.objects.create(account=account, name="compiled", proxy="socks5://127.0.0.1:1080")
    reader = CompiledGet(Session, "pk", "account_id")
    completed = ["sender", "push_name", "from_me", "direction", "type", "content", "status", "timestamp"]
    unique = ["session", "chat", "message_id"]
    upsert = CompiledUpsert(Message, unique_fields=unique, update_fields=completed)

    def bulk_create() -> None:
        Message.objects.bulk_create(
            [message()], update_conflicts=True, unique_fields=unique, update_fields=completed
        )

    def message() -> Message:
        return Message(
            session=session,
            chat="5511988887777@s.whatsapp.net",
            message_id=uuid.uuid4().hex,
            from_me=True,
            direction=Message.Direction.OUTBOUND,
            type="text",
            content={"text": "bench"},
            timestamp=timezone.now(),
        )

    sql, params = Session.objects.filter(pk=session.pk, account_id=account.pk).query.sql_with_params()

    def bare() -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            cursor.fetchone()

    try:
        print(f"compiled statements: {args.calls} calls a way, {args.rounds} rounds, {connection.vendor}")
        for number in range(1, args.rounds + 1):
            orm = per_call_ms(lambda: Session.objects.get(pk=session.pk, account_id=account.pk), args.calls)
            compiled = per_call_ms(lambda: reader.get(pk=session.pk, account_id=account.pk), args.calls)
            floor = per_call_ms(bare, args.calls)
            print(
                f"  round {number}: ORM get {orm:.3f} ms, compiled get {compiled:.3f} ms "
                f"({compiled / orm:.2f} x), the bare statement {floor:.3f} ms"
            )
            orm = per_call_ms(bulk_create, args.calls)
            compiled = per_call_ms(lambda: upsert.save(message()), args.calls)
            print(
                f"           ORM bulk_create {orm:.3f} ms, compiled upsert {compiled:.3f} ms "
                f"({compiled / orm:.2f} x)"
            )
    finally:
        Message.objects.filter(session=session).delete()
        Session.objects.filter(pk=session.pk).delete()
        account.delete()


if __name__ == "__main__":
    main()
