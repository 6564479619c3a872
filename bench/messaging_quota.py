"""Cost of the daily-quota check as an account's sent history grows.

Each send takes one from a per-account, per-day counter row (locked and incremented in the sending
transaction), so the check should not grow with the history. This prints the time per
`POST /api/messages/send` on a Free-plan account with an empty day and with 5,000 messages already
sent today, and their ratio (about 1 expected; the machine's noise shows in it). Runs on a throw-away
test database of whatever DATABASE_URL points at (SQLite by default).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

SENDS = 200
PRELOAD = 5000


def main() -> None:
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        from django.db.models import F
        from django.test import override_settings

        from accounts.models import Plan
        from accounts.services import account_create, api_key_create
        from messaging.models import DailyMessageCount, Message

        plan = Plan.objects.get(name="Free")
        plan.messages_per_day = 1_000_000
        plan.requests_per_minute = None
        plan.save()
        account = account_create(name="bench", plan=plan, bonds_subscription=None)
        _, key = api_key_create(account=account, role="admin")
        client = APIClient()
        client.credentials(HTTP_X_API_KEY=key)
        with override_settings(RATELIMIT_ENABLE=False):
            session_id = client.post("/api/sessions", {"name": "bench"}, format="json").json()["id"]
            client.post(f"/api/sessions/{session_id}/connect")
            client.post(f"/api/sandbox/sessions/{session_id}/scan")
            body = {"sessionId": session_id, "to": "5511988880002", "text": "hi"}

            def per_send() -> float:
                start = time.perf_counter()
                for _ in range(SENDS):
                    assert client.post("/api/messages/send", body, format="json").status_code == 200
                return (time.perf_counter() - start) / SENDS

            per_send()  # warm-up: caches, first queries
            empty = per_send()
            Message.objects.bulk_create(
                Message(session_id=session_id, message_id=f"PRE{i}", chat="5511900000001@s.whatsapp.net")
                for i in range(PRELOAD)
            )
            DailyMessageCount.objects.filter(account=account).update(count=F("count") + PRELOAD)
            loaded = per_send()
        print(
            f"{connection.vendor}: send with an empty day {empty * 1000:.2f} ms, "
            f"with {PRELOAD} sent today {loaded * 1000:.2f} ms, ratio {loaded / empty:.2f}"
        )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
