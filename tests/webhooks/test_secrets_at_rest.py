"""Secrets at rest: webhook secrets and channel credentials are encrypted under PONTE_SECRET_KEYS,
instance keys are digests, so a dump of the database holds none of them in clear; keys rotate."""

from __future__ import annotations

import os
import sqlite3
import subprocess

import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command
from django.db import connection

from core.encryption import DecryptionFailed
from messaging.models import SandboxDevice, Session
from webhooks.models import Webhook
from webhooks.registered.services import webhook_create

SECRET = "whsec-at-rest-7c1d9e0f4a2b"
PUBLIC_URL = "https://93.184.216.34/hook"
OLD_KEY, NEW_KEY = Fernet.generate_key().decode(), Fernet.generate_key().decode()


def stored(table: str, column: str, pk: object) -> str | None:
    """A column as the database holds it, read past the model field."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table} WHERE id = %s", [pk])
        return cursor.fetchone()[0]


@pytest.fixture
def webhook(account) -> Webhook:
    session = Session.objects.create(account=account, name="main")
    return webhook_create(
        account=account, session_id=session.pk, url=PUBLIC_URL, events=["message"], secret=SECRET
    )


def test_a_webhook_secret_is_stored_encrypted_and_read_back_in_clear(webhook):
    raw = stored("webhooks_webhook", "secret", webhook.pk)
    assert raw != SECRET and SECRET not in raw and raw.startswith("gAAAAA")  # a Fernet token
    assert Webhook.objects.get(pk=webhook.pk).secret == SECRET


def test_an_empty_secret_stays_empty(account):
    session = Session.objects.create(account=account, name="main")
    hook = webhook_create(account=account, session_id=session.pk, url=PUBLIC_URL, events=["message"])
    assert stored("webhooks_webhook", "secret", hook.pk) == ""
    assert Webhook.objects.get(pk=hook.pk).secret == ""


def test_sandbox_pairing_credentials_are_stored_encrypted(account):
    device = SandboxDevice.objects.create(session_id=Session.objects.create(account=account, name="m").pk)
    device.credentials = {"noiseKey": "bm9pc2Uta2V5LWluLWNsZWFy", "phone": "5511999990001"}
    device.save()
    raw = stored("messaging_sandboxdevice", "credentials", device.pk)
    assert "bm9pc2Uta2V5LWluLWNsZWFy" not in raw and "5511999990001" not in raw
    assert SandboxDevice.objects.get(pk=device.pk).credentials["noiseKey"] == "bm9pc2Uta2V5LWluLWNsZWFy"
    device.credentials = None
    device.save()
    assert stored("messaging_sandboxdevice", "credentials", device.pk) is None


def test_rotation_re_encrypts_under_the_first_key_so_the_old_key_can_go(account, settings):
    settings.PONTE_SECRET_KEYS = [OLD_KEY]
    session = Session.objects.create(account=account, name="main")
    hook = webhook_create(
        account=account, session_id=session.pk, url=PUBLIC_URL, events=["message"], secret=SECRET
    )
    device = SandboxDevice.objects.create(session_id=session.pk, credentials={"advSecret": "a2V5"})
    settings.PONTE_SECRET_KEYS = [NEW_KEY, OLD_KEY]  # the new key first: it encrypts, both decrypt
    assert Webhook.objects.get(pk=hook.pk).secret == SECRET
    call_command("rotate_secret_keys", stdout=(output := _Output()))
    assert "webhooks.Webhook.secret: 1 re-encrypted, 0 already under the first key" in output.text
    assert "messaging.SandboxDevice.credentials: 1 re-encrypted" in output.text
    settings.PONTE_SECRET_KEYS = [NEW_KEY]  # the old key is dropped
    assert Webhook.objects.get(pk=hook.pk).secret == SECRET
    assert SandboxDevice.objects.get(pk=device.pk).credentials == {"advSecret": "a2V5"}
    call_command("rotate_secret_keys", stdout=(again := _Output()))
    assert "webhooks.Webhook.secret: 0 re-encrypted, 1 already under the first key" in again.text


def test_a_value_under_a_lost_key_fails_loudly_naming_the_setting(webhook, settings):
    settings.PONTE_SECRET_KEYS = [NEW_KEY]
    with pytest.raises(DecryptionFailed, match="PONTE_SECRET_KEYS"):
        Webhook.objects.get(pk=webhook.pk)
    with pytest.raises(CommandError, match="PONTE_SECRET_KEYS"):
        call_command("rotate_secret_keys", stdout=_Output())


class _Output:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


def _dump() -> str:
    """The whole database as text: pg_dump on PostgreSQL, every row of every table on SQLite."""
    settings_dict = connection.settings_dict
    if connection.vendor == "postgresql":
        command = ["pg_dump", "--no-owner", "-h", settings_dict["HOST"] or "127.0.0.1"]
        command += ["-p", settings_dict["PORT"] or "5432", "-U", settings_dict["USER"] or "postgres"]
        environment = {**os.environ, "PGPASSWORD": settings_dict["PASSWORD"] or ""}
        result = subprocess.run(
            [*command, settings_dict["NAME"]], capture_output=True, text=True, env=environment, timeout=120
        )
        assert result.returncode == 0, result.stderr
        return result.stdout
    with sqlite3.connect(settings_dict["NAME"]) as database:
        tables = [row[0] for row in database.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return "\n".join(
            repr(row) for table in tables for row in database.execute(f'SELECT * FROM "{table}"')
        )


@pytest.mark.django_db(transaction=True)
def test_a_database_dump_holds_no_webhook_secret_and_no_instance_key(keyed_client, admin_key):
    admin_client = keyed_client(admin_key)
    created = admin_client.post("/api/sessions", {"name": "dumped"}, format="json").json()
    instance_key = created["instanceKey"]
    assert admin_client.post(f"/api/sessions/{created['id']}/connect").status_code == 200
    scan = admin_client.post(
        f"/api/sandbox/sessions/{created['id']}/scan", {"phone": "5511977770001"}, format="json"
    )
    assert scan.status_code == 200
    credentials = SandboxDevice.objects.get(session_id=created["id"]).credentials
    hook = admin_client.post(
        "/gateway/webhooks",
        {"sessionId": created["id"], "url": PUBLIC_URL, "events": ["message"], "secret": SECRET},
        format="json",
    )
    assert hook.status_code == 200, hook.json()
    regenerated = admin_client.post(f"/api/sessions/{created['id']}/instance-key").json()["instanceKey"]

    dump = _dump()
    assert PUBLIC_URL in dump and created["id"].replace("-", "") in dump.replace("-", "")  # rows are there
    assert SECRET not in dump
    assert instance_key not in dump and regenerated not in dump
    # The credentials column is ciphertext: its JSON field names appear nowhere. (Their values can:
    # the sandbox's QR text, stored with the qr event, carries its public keys as WhatsApp's does.)
    assert set(credentials) >= {"identityKey", "advSecret"}
    assert '"identityKey"' not in dump and '"advSecret"' not in dump


def test_dumpdata_and_loaddata_carry_encrypted_fields_as_their_values(account, tmp_path):
    session = Session.objects.create(account=account, name="main")
    device = SandboxDevice.objects.create(session_id=session.pk, credentials={"advSecret": "a2V5"})
    fixture = tmp_path / "devices.json"
    call_command("dumpdata", "messaging.SandboxDevice", output=str(fixture))
    SandboxDevice.objects.all().delete()
    call_command("loaddata", str(fixture), stdout=_Output())
    assert SandboxDevice.objects.get(pk=device.pk).credentials == {"advSecret": "a2V5"}
    assert "a2V5" not in stored("messaging_sandboxdevice", "credentials", device.pk)
