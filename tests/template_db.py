"""One migrated SQLite test database per run of `make test-fast`, copied to each pytest-xdist worker.

Every worker would otherwise create its SQLite test database and run every migration itself. The first
worker to take the run's lock migrates as usual and leaves a copy of the result (the template) in the
run's folder; each other worker waits for the lock and starts from a copy of the template, which
pytest-django then keeps (`keepdb`: the migrations already applied, migrate has nothing left to do).
Only for SQLite under xdist: PostgreSQL and the serial `make test` set up their databases as before.
The run's folder is the controller's var dir (tests/isolation.py), which it removes at the end.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

LOCK_KEY = pytest.StashKey[int]()


def applies(config: pytest.Config) -> bool:
    from django.db import connection

    running_under_xdist = hasattr(config, "workerinput") and "PONTE_TEST_RUN_DIR" in os.environ
    return running_under_xdist and connection.vendor == "sqlite"


def template_path(config: pytest.Config) -> Path:
    run_dir = Path(os.environ["PONTE_TEST_RUN_DIR"])
    return run_dir / f"test-template-{config.workerinput['testrunuid']}.sqlite3"


def test_db_path() -> Path:
    """This worker's test database (core.env's TEST NAME, with pytest-django's xdist suffix)."""
    from django.db import connection

    return Path(connection.settings_dict["TEST"]["NAME"])


def copy_database(source: Path, target: Path) -> None:
    """SQLite's backup API: a consistent copy, the write-ahead log included."""
    with closing(sqlite3.connect(source)) as origin, closing(sqlite3.connect(target)) as copy:
        origin.backup(copy)


def start_from_template(config: pytest.Config) -> bool:
    """Copy the template into this worker's test database and say so; when there is none yet, keep
    the lock (this worker builds it: `leave_template`) and say so."""
    template = template_path(config)
    lock = os.open(template.with_suffix(".lock"), os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    if template.exists():
        copy_database(template, test_db_path())
        fcntl.flock(lock, fcntl.LOCK_UN)
        os.close(lock)
        return True
    config.stash[LOCK_KEY] = lock
    return False


def leave_template(config: pytest.Config) -> None:
    """After this worker migrated its test database: copy it to the template, let the others in."""
    lock = config.stash.get(LOCK_KEY, None)
    if lock is None:
        return
    del config.stash[LOCK_KEY]
    try:
        partial = template_path(config).with_suffix(".partial")
        copy_database(test_db_path(), partial)
        partial.rename(template_path(config))
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        os.close(lock)
