"""Each run of the suite gets its own var dir, so it can run beside `make run` in the same checkout.

Under the var dir live the embedded default's filesystem broker, the SQLite test database, media, the
demo keys file and the Prometheus multiprocess files. Shared with a running `make run`, the dev worker
took the suite's Celery tasks from the broker folder, and the suite's purge dropped the dev's hints (a
delivery then waited for the sweeper). This plugin is loaded by `-p tests.isolation` (pyproject.toml's
addopts), before pytest-django reads the settings, and points PONTE_VAR_DIR at a fresh temporary folder;
every process a test starts inherits the environment, so its workers, web servers and commands use that
folder too. A PONTE_VAR_DIR set in the shell is replaced on purpose: it is the one a `make run` started
from that shell uses.

(With REDIS_URL the broker and the cache are that Redis database, which the suite empties: give the
suite a database of its own, e.g. REDIS_URL=redis://127.0.0.1:6379/1.)
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

VAR_DIR = Path(tempfile.mkdtemp(prefix="ponte-test-var-"))
os.environ["PONTE_VAR_DIR"] = str(VAR_DIR)
# The run's folder, shared by pytest-xdist's workers (they inherit the controller's environment):
# tests/template_db.py leaves the migrated test database there for all of them.
os.environ.setdefault("PONTE_TEST_RUN_DIR", str(VAR_DIR))
# The whole suite, and every worker, server or engine process a test starts, refuses an outbound HTTP
# request inside a database transaction (net.guard, docs/decisions/0021).
os.environ["PONTE_REFUSE_OUTSIDE_CALLS_IN_TRANSACTION"] = "true"
# The settings only set it when unset; one inherited from the shell (or an outer run) would be shared.
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(VAR_DIR / "metrics")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(VAR_DIR, ignore_errors=True)
