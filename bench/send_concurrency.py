"""Concurrent sends through the remote engine: to one chat against spread over as many chats.

200 `POST /api/messages/send` from 20 threads (Django's test client, the whole view path) on one paired
sandbox session hosted by a `run_engine` process: first to 200 chats, then all to one chat. Prints each
wall time, the sends per second and the ratio one chat / 200 chats (issue 39: 500 sends to one chat ran
one at a time behind the engine's round trip; docs/decisions/0013). An engine process answers its
commands one at a time, so both runs are bounded by it; what the ratio shows is whether sends to one
chat wait on each other beyond that.

Needs PostgreSQL (DATABASE_URL; RemoteEngine refuses SQLite) and the `redis-server` binary (its own, on
a free port). Runs on a throw-away test database; on SQLite it prints a note and exits 0.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import override_settings, setup_test_environment  # noqa: E402

SENDS = int(os.environ.get("BENCH_SENDS", "200"))
THREADS = 20
REMOTE = "messaging.engines.remote.RemoteEngine"


def send_all(key: str, session_id: str, recipients: list[str]) -> tuple[float, int]:
    """Send one text to each recipient from THREADS threads at once; (seconds, replies other than 200)."""
    from rest_framework.test import APIClient

    failed: list[int] = []
    start = threading.Barrier(THREADS + 1)

    def work(share: list[str]) -> None:
        client = APIClient()
        client.credentials(HTTP_X_API_KEY=key)
        start.wait()
        try:
            for to in share:
                reply = client.post(
                    "/api/messages/send", {"sessionId": session_id, "to": to, "text": "b"}, format="json"
                )
                if reply.status_code != 200:
                    failed.append(reply.status_code)
                    if len(failed) == 1:
                        print(f"  first refusal: {reply.status_code} {reply.content[:300]!r}")
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(recipients[n::THREADS],)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.monotonic()
    for thread in threads:
        thread.join()
    return time.monotonic() - began, len(failed)


def main() -> None:
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        print(
            "bench/send_concurrency.py: RemoteEngine needs PostgreSQL (set DATABASE_URL); nothing measured."
        )
        return
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    from tests.messaging.engine_support import EngineProcess, RedisServer

    server = RedisServer().start()
    engine = None
    try:
        from accounts.models import Plan
        from accounts.services import account_create, api_key_create
        from messaging.models import Session
        from messaging.services import sessions as services

        account = account_create(
            name="bench", plan=Plan.objects.get(name="Empresarial"), bonds_subscription=None
        )
        key = api_key_create(account=account, role="admin")[1]
        session = Session.objects.create(account=account, name="concurrency")
        services.session_connect(session=session)
        services.sandbox_scan(session=session)
        env = {"ENGINE_LEASE_SECONDS": "15", "ENGINE_HEARTBEAT_SECONDS": "3", "DB_CONN_MAX_AGE": "60"}
        engine = EngineProcess(server.url, env=env).start()
        with override_settings(MESSAGING_ENGINE=REMOTE, ENGINE_REDIS_URL=server.url):
            send_all(key, str(session.pk), ["5511900000000"] * THREADS)  # warm: the session claimed
            spread, spread_failed = send_all(
                key, str(session.pk), [f"55119{n:08d}" for n in range(1, SENDS + 1)]
            )
            one, one_failed = send_all(key, str(session.pk), ["5511988880002"] * SENDS)
        print(f"{SENDS} sends from {THREADS} threads through RemoteEngine (one run_engine process):")
        print(f"  {SENDS} chats: {spread:6.2f} s  {SENDS / spread:6.1f}/s  (non-200: {spread_failed})")
        print(f"  one chat : {one:6.2f} s  {SENDS / one:6.1f}/s  (non-200: {one_failed})")
        print(f"  ratio one chat / {SENDS} chats: {one / spread:.2f}")
    finally:
        if engine is not None:
            engine.stop()
        server.stop()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
