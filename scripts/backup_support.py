"""The helpers of scripts/backup_check.py: its step printer and check, and the two kinds of database it
backs up and restores (PostgreSQL with pg_dump / pg_restore, SQLite with its online backup API)."""

from __future__ import annotations

import os
import secrets
import sqlite3
import subprocess
import time
from pathlib import Path
from urllib.parse import unquote, urlparse


def step(message: str) -> None:
    print(f"backup-check: {message}", flush=True)


class CheckFailed(Exception):
    pass


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)
    step(f"  ok: {message}")


# --- Databases: PostgreSQL or SQLite -------------------------------------------------------------------


class Postgres:
    def __init__(self, url: str) -> None:
        parsed = urlparse(url)
        self.params = {
            "host": parsed.hostname or "",
            "port": parsed.port or 5432,
            "user": unquote(parsed.username or ""),
            "password": unquote(parsed.password or ""),
        }
        base = unquote(parsed.path.lstrip("/")) or "ponte"
        suffix = f"{os.getpid()}_{secrets.token_hex(3)}"
        self.source, self.restored = (f"{base[:30]}_backup_{suffix}_{role}" for role in ("src", "restored"))

    def url(self, name: str) -> str:
        auth = self.params["user"] + (f":{self.params['password']}" if self.params["password"] else "")
        return f"postgres://{auth}@{self.params['host']}:{self.params['port']}/{name}"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(dbname="postgres", autocommit=True, **self.params) as connection:
            connection.execute(sql)

    def create(self, name: str) -> None:
        self._admin(f'CREATE DATABASE "{name}"')

    def drop(self, name: str) -> None:
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def dump(self, folder: Path) -> Path:
        target = folder / "ponte.dump"
        run_tool(["pg_dump", "--format=custom", "--file", str(target), self._libpq(self.source)])
        return target

    def restore(self, backup: Path) -> None:
        run_tool(
            [
                "pg_restore",
                "--no-owner",
                "--exit-on-error",
                "--dbname",
                self._libpq(self.restored),
                str(backup),
            ]
        )

    def _libpq(self, name: str) -> str:
        return self.url(name).replace("postgres://", "postgresql://", 1)


class Sqlite:
    def __init__(self, folder: Path) -> None:
        self.source, self.restored = str(folder / "source.sqlite3"), str(folder / "restored.sqlite3")

    def url(self, name: str) -> str:
        return f"sqlite:///{name}"

    def create(self, name: str) -> None:
        pass  # the file appears when the database is first opened

    def drop(self, name: str) -> None:
        for path in (name, f"{name}-wal", f"{name}-shm"):
            Path(path).unlink(missing_ok=True)

    def dump(self, folder: Path) -> Path:
        target = folder / "ponte.backup.sqlite3"
        sqlite_copy(self.source, str(target))
        return target

    def restore(self, backup: Path) -> None:
        sqlite_copy(str(backup), self.restored)


def sqlite_copy(source: str, target: str) -> None:
    """SQLite's online backup API: a consistent copy even while other connections write."""
    with sqlite3.connect(source) as origin, sqlite3.connect(target) as copy:
        origin.backup(copy)
    origin.close()
    copy.close()


def run_tool(command: list[str]) -> None:
    started = time.monotonic()
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except FileNotFoundError:
        raise CheckFailed(f"{command[0]} is not on PATH (apt-get install postgresql-client)") from None
    if result.returncode != 0:
        raise CheckFailed(f"{command[0]} failed ({result.returncode}): {result.stderr.strip()}")
    step(f"  {command[0]} done in {time.monotonic() - started:.1f} s")
