"""`make backup-check` (scripts/backup_check.py) passes on the database the suite runs on: PostgreSQL
(pg_dump -Fc, pg_restore into a fresh database) or the embedded default (SQLite's online backup API), so
both passes of `make test` prove a backup restores."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_populated_database_dumped_and_restored_still_authenticates_signs_resends_and_reconnects():
    on_postgres = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
    result = subprocess.run(
        [sys.executable, "scripts/backup_check.py"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert ("pg_dump -Fc / pg_restore" if on_postgres else "SQLite (backup API)") in result.stdout
    for proof in (
        "the API key authenticates",
        "the webhook secret signs as before the backup",
        "the resent dead letter is delivered to the receiver",
        "…signed with the restored secret",
        "the session reconnects with its stored credentials",
    ):
        assert f"ok: {proof}" in result.stdout, output
    assert "backup-check: PASS" in result.stdout


def test_a_restore_without_the_backed_up_secret_keys_fails_the_check_with_a_clear_reason():
    result = subprocess.run(
        [sys.executable, "scripts/backup_check.py", "--without-keys"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "cannot be decrypted with any of PONTE_SECRET_KEYS" in result.stdout
    assert "backup-check: FAIL" in result.stdout
    assert "PASS" not in result.stdout
