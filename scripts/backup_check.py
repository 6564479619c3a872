"""Prove that a backup restores (`make backup-check`): dump a populated database, restore it into a fresh
one, and use what was restored.

1. A fresh database is created and migrated, then populated through Ponte's own services: an account and
   an IP-free admin API key, a sandbox session paired by its QR code (its pairing keys are the stored,
   encrypted credentials), a webhook with a secret on it, an inbound message whose delivery the local
   receiver refuses until it is a dead letter.
2. The backup: `pg_dump -Fc` on PostgreSQL; on the embedded default (SQLite), a copy made with SQLite's
   online backup API (what `sqlite3 var/ponte.sqlite3 ".backup file"` does).
3. The restore into another fresh database: `pg_restore --no-owner`; on SQLite, the copy copied back.
4. Against the restored database, in a new process (so nothing is served from memory): the schema is at
   the latest migration, the API key authenticates (`GET /api/me`), the webhook secret decrypts and signs
   as before, the dead letter is resent and the receiver gets it with its original `webhook-id` and a
   valid signature, the session's credentials decrypt and it reconnects with them, and with another
   PONTE_SECRET_KEYS the secrets cannot be read (why the keys are backed up too).

Runs on the configured DATABASE_URL's server (PostgreSQL: needs CREATE DATABASE there and pg_dump /
pg_restore on PATH) or, without DATABASE_URL, on SQLite files in a temporary folder. Prints each step, then
PASS or FAIL; exits non-zero on failure; drops its databases at the end. Redis is not used.

    python scripts/backup_check.py                  # PASS, or FAIL and exit status 1
    python scripts/backup_check.py --without-keys   # the same, restored without PONTE_SECRET_KEYS: FAIL
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# Run as a script, so this folder is on sys.path: its helpers (the databases, the step printer) import.
from backup_support import CheckFailed, Postgres, Sqlite, expect, step

ROOT = Path(__file__).resolve().parent.parent
SIGNED_SAMPLE = b'{"backup": "check"}'


# --- The local webhook receiver (in the parent process, alive across both phases) ----------------------


class Receiver:
    """Answers 500 until `accept()` is called, then 200; records what it received."""

    def __init__(self) -> None:
        self.accepting = False
        self.received: list[dict[str, Any]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.received.append(
                    {"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                )
                self.send_response(200 if receiver.accepting else 500)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def accept(self) -> None:
        self.accepting = True
        self.received.clear()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- The two phases, each in a process of its own on one database ---------------------------------------


def phase_populate(facts_file: Path, receiver_url: str) -> None:
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)
    from accounts.models import Plan
    from accounts.services import account_create, api_key_create
    from messaging.models import SandboxDevice
    from messaging.services.sessions import sandbox_inject, sandbox_pair, session_create
    from webhooks.models import Delivery
    from webhooks.outbox.drains import delivery_attempt
    from webhooks.registered.services import webhook_create
    from webhooks.signing import hex_signature

    account = account_create(name="backup-check", plan=Plan.objects.get(name="Empresarial"))
    _, key = api_key_create(account=account, role="admin", name="backup check")
    session = session_create(account=account, name="backup check")
    session = sandbox_pair(session=session)
    credentials = SandboxDevice.objects.get(session_id=session.pk).credentials
    secret = "backup-" + secrets.token_urlsafe(24)
    webhook = webhook_create(
        account=account,
        session_id=session.pk,
        url=receiver_url,
        events=["message"],
        secret=secret,
        retry_count=1,
    )
    sandbox_inject(
        session=session, event="message", data={"from": "5511999990000@s.whatsapp.net", "text": "hi"}
    )
    delivery = Delivery.objects.get(webhook=webhook)
    outcome = delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    if delivery.status != Delivery.Status.DEAD:
        raise CheckFailed(f"the delivery should be a dead letter before the backup; it is {outcome}")
    facts = {
        "key": key,
        "account": account.name,
        "secret": secret,
        "signature": hex_signature(secret=secret, body=SIGNED_SAMPLE),
        "webhook": webhook.pk,
        "delivery": delivery.pk,
        "dispatch_id": delivery.dispatch_id,
        "session": str(session.pk),
        "credentials": credentials,
    }
    facts_file.write_text(json.dumps(facts))
    step(
        f"  populated: account {account.name}, key {key[:8]}…, session {session.pk} ({session.status}), "
        f"webhook {webhook.pk} with a secret, dead letter {delivery.dispatch_id}"
    )


def phase_verify(facts_file: Path) -> None:
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import override_settings

    facts = json.loads(facts_file.read_text())
    try:
        call_command("migrate", "--check", verbosity=0)
    except SystemExit as exc:
        raise CheckFailed("the restored database is not at the latest migration") from exc
    step("  ok: the restored schema is at the latest migration")

    from core.encryption import DecryptionFailed
    from messaging.models import SandboxDevice, Session
    from messaging.services.sessions import session_restart
    from webhooks.models import Delivery, Webhook
    from webhooks.outbox.deliveries import deliveries_resend
    from webhooks.outbox.drains import delivery_attempt
    from webhooks.signing import hex_signature

    reply = Client().get("/api/me", HTTP_X_API_KEY=facts["key"])
    expect(reply.status_code == 200, f"the API key authenticates (GET /api/me: {reply.status_code})")
    expect(json.dumps(reply.json()).count(facts["account"]) > 0, "…as the account it was issued to")
    wrong = Client().get("/api/me", HTTP_X_API_KEY=facts["key"][:-4] + "xxxx")
    expect(wrong.status_code == 401, "a key that was never issued still does not (401)")

    webhook = Webhook.objects.get(pk=facts["webhook"])
    expect(webhook.secret == facts["secret"], "the webhook secret decrypts to the one that was set")
    signature = hex_signature(secret=webhook.secret, body=SIGNED_SAMPLE)
    expect(
        hmac.compare_digest(signature, facts["signature"]), "the webhook secret signs as before the backup"
    )

    dead = Delivery.objects.filter(pk=facts["delivery"])
    expect(dead.get().status == Delivery.Status.DEAD, "the dead letter is still a dead letter")
    queued, _ = deliveries_resend(deliveries=dead, requested_by=None)
    expect(queued == 1, "the dead letter is queued again by the resend service")
    outcome = delivery_attempt(delivery_id=facts["delivery"])
    expect(outcome == "delivered", f"the resent dead letter is delivered to the receiver ({outcome})")

    device = SandboxDevice.objects.get(session_id=facts["session"])
    expect(device.credentials == facts["credentials"], "the paired session's credentials decrypt as stored")
    session = session_restart(session=Session.objects.get(pk=facts["session"]))
    expect(session.status == Session.Status.CONNECTED, "the session reconnects with its stored credentials")

    other_key = base64.urlsafe_b64encode(hashlib.sha256(b"not the backed-up key").digest()).decode()
    with override_settings(PONTE_SECRET_KEYS=[other_key]):
        try:
            Webhook.objects.get(pk=facts["webhook"]).secret  # noqa: B018
        except DecryptionFailed:
            step("  ok: without the backed-up PONTE_SECRET_KEYS the webhook secret cannot be read")
        else:
            raise CheckFailed("a secret decrypted with a key it was not encrypted with")


def child(phase: str, facts_file: Path, receiver_url: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from core.encryption import DecryptionFailed

    try:
        if phase == "populate":
            phase_populate(facts_file, receiver_url)
        else:
            phase_verify(facts_file)
    except (CheckFailed, DecryptionFailed) as exc:
        step(f"  FAILED: {exc}")
        sys.exit(1)


# --- The run ------------------------------------------------------------------------------------------------


def run_phase(phase: str, database_url: str, folder: Path, receiver_url: str, keys: dict[str, str]) -> None:
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "CELERY_BROKER_URL")}
    env.update(
        keys,
        DATABASE_URL=database_url,
        PONTE_VAR_DIR=str(folder / "var"),
        PONTE_WEBHOOK_ALLOW_NETWORKS="127.0.0.1/32",
        DB_CONN_MAX_AGE="0",
        LOG_LEVEL="WARNING",
    )
    command = [sys.executable, __file__, "--phase", phase, str(folder / "facts.json"), receiver_url]
    if subprocess.run(command, cwd=ROOT, env=env).returncode != 0:
        raise CheckFailed(f"the {phase} step failed")


def check_receipt(receiver: Receiver, facts_file: Path) -> None:
    facts = json.loads(facts_file.read_text())
    expect(len(receiver.received) == 1, "the receiver got the resent dead letter once")
    received = receiver.received[0]
    expect(received["headers"].get("webhook-id") == facts["dispatch_id"], "…with its original webhook-id")
    signature = hmac.new(facts["secret"].encode(), received["body"], hashlib.sha256).hexdigest()
    expect(
        hmac.compare_digest(received["headers"].get("x-webhook-signature", ""), signature),
        "…signed with the restored secret (x-webhook-signature verifies)",
    )


def main(*, without_keys: bool = False) -> int:
    started = time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix="ponte-backup-check-"))
    url = os.environ.get("DATABASE_URL", "")
    database = Postgres(url) if url.startswith(("postgres://", "postgresql://")) else Sqlite(folder)
    kind = (
        "PostgreSQL (pg_dump -Fc / pg_restore)" if isinstance(database, Postgres) else "SQLite (backup API)"
    )
    from cryptography.fernet import Fernet

    keys = {"PONTE_SECRET_KEYS": Fernet.generate_key().decode(), "SECRET_KEY": secrets.token_urlsafe(50)}
    receiver = Receiver()
    created: list[str] = []
    try:
        step(f"on {kind}")
        step(f"1. creating, migrating and populating {database.source}")
        database.create(database.source)
        created.append(database.source)
        run_phase("populate", database.url(database.source), folder, receiver.url, keys)
        step("2. backing it up")
        backup = database.dump(folder)
        step(f"  backup: {backup.stat().st_size:,} bytes")
        step(f"3. restoring into a fresh database, {database.restored}")
        database.create(database.restored)
        created.append(database.restored)
        database.restore(backup)
        step("4. using the restored database")
        receiver.accept()
        if without_keys:
            step("  (restoring without the backed-up PONTE_SECRET_KEYS, as asked: this must FAIL)")
            keys = {**keys, "PONTE_SECRET_KEYS": Fernet.generate_key().decode()}
        run_phase("verify", database.url(database.restored), folder, receiver.url, keys)
        check_receipt(receiver, folder / "facts.json")
    except CheckFailed as exc:
        step(f"FAIL: {exc}")
        return 1
    finally:
        receiver.stop()
        for name in created:
            database.drop(name)
        shutil.rmtree(folder, ignore_errors=True)
    elapsed = time.monotonic() - started
    step(f"PASS ({elapsed:.0f} s): the restored backup authenticates, signs, resends, reconnects")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--phase":
        child(sys.argv[2], Path(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(main(without_keys="--without-keys" in sys.argv[1:]))
