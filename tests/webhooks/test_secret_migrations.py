"""The migrations that moved secrets at rest: existing webhook secrets and sandbox credentials are
encrypted (and decrypted again by the reverse), existing instance keys become digests and keep working."""

from __future__ import annotations

import json
import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from messaging.models import SandboxDevice
from webhooks.models import Webhook

BEFORE = [("webhooks", "0005_partial_delivery_indexes"), ("messaging", "0003_daily_message_count")]
SECRET = "legacy-secret-in-clear-5f3a"
LEGACY_KEY = "AbCdEfGh_legacy-instance-key-1234"  # 32+ characters, as token_urlsafe(24) made them


def raw(sql: str, params: list) -> object:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return MigrationExecutor(connection)  # a fresh loader sees the new state


# Slow (tests/tiers.py): migrates the whole schema back and forth.
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_existing_secrets_are_encrypted_keys_digested_and_the_reverse_decrypts(account, client):
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        old = migrate(BEFORE).loader.project_state(BEFORE).apps
        session = old.get_model("messaging", "Session").objects.create(
            id=uuid.uuid4(), account_id=account.pk, name="legacy", instance_key=LEGACY_KEY
        )
        old.get_model("webhooks", "Webhook").objects.create(
            id="wh_legacy", account_id=account.pk, session_id=session.pk, url="https://93.184.216.34/h",
            secret=SECRET, events=["message"],
        )  # fmt: skip
        old.get_model("messaging", "SandboxDevice").objects.create(
            session_id=session.pk, credentials={"advSecret": "bGVnYWN5"}
        )

        migrate(latest)
        stored_secret = raw("SELECT secret FROM webhooks_webhook WHERE id = %s", ["wh_legacy"])
        assert SECRET not in stored_secret and Webhook.objects.get(pk="wh_legacy").secret == SECRET
        assert "bGVnYWN5" not in raw("SELECT credentials FROM messaging_sandboxdevice", [])
        assert SandboxDevice.objects.get().credentials == {"advSecret": "bGVnYWN5"}
        assert client.get(f"/instances/{LEGACY_KEY}/instance").status_code == 200  # the old key works

        migrate(BEFORE)
        assert raw("SELECT secret FROM webhooks_webhook WHERE id = %s", ["wh_legacy"]) == SECRET
        credentials = raw("SELECT credentials FROM messaging_sandboxdevice", [])
        assert (json.loads(credentials) if isinstance(credentials, str) else credentials) == {
            "advSecret": "bGVnYWN5"
        }
        # Keys stored as digests cannot come back: the reverse gives each session a new one in clear.
        new_key = raw("SELECT instance_key FROM messaging_session WHERE name = %s", ["legacy"])
        assert new_key and new_key != LEGACY_KEY
    finally:
        migrate(latest)
