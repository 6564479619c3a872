"""Shared fixtures. Tests talk to the real database and cache the settings point at."""

from __future__ import annotations

import gc
import logging
import os
import traceback
from collections.abc import Callable, Iterator
from importlib import import_module
from pathlib import Path

import pytest
from django.core.cache import cache
from django.utils import translation
from rest_framework.test import APIClient

from accounts.models import Account, ApiKey, Plan
from accounts.services import account_create, api_key_create
from core.logfilters import SecretRedaction
from tests import template_db
from tests.faults import RedisServer
from tests.webhooks.support import LOOPBACK

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI a skipped test is a failure: every service a test needs must be there."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, which must run every test: {report.longrepr}"


@pytest.fixture(scope="session")
def django_db_keepdb(request, django_db_keepdb, django_db_modify_db_settings) -> bool:
    """Under xdist on SQLite, a worker whose test database is a copy of the run's template keeps it
    (tests/template_db.py); otherwise pytest-django's own answer (--reuse-db)."""
    if template_db.applies(request.config) and template_db.start_from_template(request.config):
        return True
    return django_db_keepdb


@pytest.fixture(scope="session")
def django_db_setup(request, django_db_setup) -> None:
    """pytest-django's set-up; the worker that migrated leaves the template (tests/template_db.py)."""
    if template_db.applies(request.config):
        template_db.leave_template(request.config)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Once collected, the objects every test shares (Django, the apps, the test modules) move out of
    the garbage collector's sight, and it runs less often: the suite makes many short-lived cycles (ORM
    queries, test clients), and a full collection walked every module object each time (~3 s of each
    xdist worker's run, measured with gc.callbacks; ~1.5 s with this). Memory is no concern here."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 50)


@pytest.fixture(autouse=True)
def _default_language():
    """Each test starts in the default language: a request in another one leaves it active on the thread
    (Django's LocaleMiddleware activates the request's language and never resets it), and a later test
    that reads a text or a date without asking for a language read Portuguese (test_account_times under
    `-n 2`)."""
    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _clean_cache():
    """Rate-limit counters and cached replies must not leak from one test to the next."""
    cache.clear()
    yield
    cache.clear()


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []
        self.addFilter(SecretRedaction())  # the failure message prints: no key in its URLs

    def emit(self, record: logging.LogRecord) -> None:
        """The refusal, and the project's frames that led to it (where the call must move from)."""
        frames = [
            f"{Path(frame.filename).relative_to(ROOT)}:{frame.lineno} {frame.name}"
            for frame in traceback.extract_stack()
            if frame.filename.startswith(str(ROOT))
            and not frame.filename.startswith((str(ROOT / "tests"), str(ROOT / ".venv")))
        ]
        self.messages.append(f"{record.getMessage()} [via {' > '.join(frames[-8:])}]")


@pytest.fixture(autouse=True)
def outside_calls_in_transaction() -> Iterator[list[str]]:
    """Every outbound HTTP request started inside a transaction during the test (net.guard refuses it,
    tests/isolation.py turns the refusal on). The test fails for any, even when the code under test
    caught the refusal (a job that records every failure as a failed attempt, say). A test that misuses
    the transport on purpose empties the list."""
    collect = _Collect()
    guard_logger = logging.getLogger("net.guard")
    guard_logger.addHandler(collect)
    try:
        yield collect.messages
    finally:
        guard_logger.removeHandler(collect)
    if collect.messages:
        pytest.fail("outside call inside a transaction: " + "; ".join(collect.messages), pytrace=False)


@pytest.fixture
def allow_loopback(settings) -> None:
    """Local receivers and stand-ins live on 127.0.0.1, which the SSRF rules refuse unless allow-listed."""
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = [LOOPBACK]


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A private redis-server of the test's own, which it may stop and start again."""
    server = RedisServer().start()
    yield server
    server.stop()


@pytest.fixture
def private_redis_cache(redis_server, settings) -> RedisServer:
    """The default cache on the test's own redis-server (Ponte's Redis cache, a short breaker pause, the
    wake-up lists on), which the test may stop and start again."""
    settings.PONTE_REDIS_RETRY_SECONDS = 0.2
    settings.PONTE_WAKE_LIST = True
    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.RedisCache",
            "LOCATION": redis_server.url,
            "KEY_PREFIX": "private-test",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 2.0},
        }
    }
    return redis_server


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def default_plans(db) -> None:
    """The plans the data migration seeds. Transactional tests (live_server, a real worker) flush
    the tables afterwards, so seed them again whenever they are missing. (Do not reach for
    `serialized_rollback=True` instead: after another transactional test has flushed, restoring the
    serialized rows collides with the content types Django recreates.)"""
    if not Plan.objects.exists():
        from django.apps import apps

        import_module("accounts.migrations.0002_seed_plans").seed(apps, None)


@pytest.fixture
def plan(default_plans) -> Callable[[str], Plan]:
    return lambda name: Plan.objects.get(name=name)


@pytest.fixture
def make_account(default_plans) -> Callable[..., Account]:
    counter = iter(range(1, 10_000))

    def make(plan_name: str = "Empresarial", bonds_subscription: str | None = "active", **kwargs) -> Account:
        name = kwargs.pop("name", f"acct-{next(counter)}")
        return account_create(
            name=name, plan=Plan.objects.get(name=plan_name), bonds_subscription=bonds_subscription, **kwargs
        )

    return make


@pytest.fixture
def account(make_account) -> Account:
    return make_account(name="acme")


@pytest.fixture
def make_key(account) -> Callable[..., str]:
    """Issue a key and return its plaintext."""

    def make(role: str = ApiKey.Role.ADMIN, *, for_account: Account | None = None, **kwargs) -> str:
        return api_key_create(account=for_account or account, role=role, **kwargs)[1]

    return make


@pytest.fixture
def admin_key(make_key) -> str:
    return make_key(ApiKey.Role.ADMIN)


@pytest.fixture
def operator_key(make_key) -> str:
    return make_key(ApiKey.Role.OPERATOR)


@pytest.fixture
def viewer_key(make_key) -> str:
    return make_key(ApiKey.Role.VIEWER)


@pytest.fixture
def keyed_client(api_client) -> Callable[[str], APIClient]:
    def make(plaintext: str) -> APIClient:
        api_client.credentials(HTTP_X_API_KEY=plaintext)
        return api_client

    return make


def database_url_of_test_db() -> str:
    """A DATABASE_URL naming the test database, for processes a test starts (commands, workers)."""
    from django.db import connection

    params = connection.settings_dict
    if params["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{params['NAME']}"
    auth = params["USER"] + (f":{params['PASSWORD']}" if params["PASSWORD"] else "")
    return f"postgres://{auth}@{params['HOST']}:{params['PORT'] or 5432}/{params['NAME']}"


@pytest.fixture
def subprocess_env(db) -> dict[str, str]:
    """The environment for a child process that must use the test database."""
    return {**os.environ, "DATABASE_URL": database_url_of_test_db()}


@pytest.fixture(scope="session", autouse=True)
def _quick_password_hashing() -> Iterator[None]:
    """Sign-ups and sign-ins hash with a cheap hasher: the suite tests Ponte, not PBKDF2's cost (Django's
    own advice for test runs). Processes a test starts read the real settings."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield
