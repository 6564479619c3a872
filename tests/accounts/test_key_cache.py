"""Resolved keys kept per process (accounts/keycache.py): a change made by another process is seen by the
next call here, because its write deletes the key's token in the shared cache (a private redis-server,
shared by this process and the one that writes)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from accounts.services import api_key_authenticate, api_key_create
from core.errors import NotAuthenticated
from tests.conftest import database_url_of_test_db
from tests.faults import RedisServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shared_cache(settings) -> Iterator[RedisServer]:
    """This process's cache on a private Redis the other process uses too."""
    server = RedisServer().start()
    settings.CACHES = {
        "default": {"BACKEND": "core.cache.RedisCache", "LOCATION": server.url, "KEY_PREFIX": "keycache"}
    }
    yield server
    server.stop()


class OtherProcess:
    """A second Django process on the test database and the shared cache, started and set up ahead, so
    that what it is told to do happens within milliseconds of the call that follows (well within the
    second a copy used to be trusted for)."""

    def __init__(self, server: RedisServer) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": database_url_of_test_db(),
            "REDIS_URL": server.url,
            "CACHE_KEY_PREFIX": "keycache",
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
        script = "\n".join(
            (
                "import django",
                "django.setup()",
                "print('ready', flush=True)",
                "exec(input())",
                "print('done', flush=True)",
            )
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout.readline().strip() == "ready"

    def run(self, code: str) -> None:
        self.process.stdin.write(code.replace("\n", ";") + "\n")
        self.process.stdin.flush()
        assert self.process.stdout.readline().strip() == "done"
        self.process.wait(timeout=30)


# Slow (tests/tiers.py): another Python process beside a redis-server of its own.
@pytest.mark.slow
def test_a_key_revoked_in_another_process_is_refused_at_the_next_call(
    transactional_db, shared_cache, account, django_assert_num_queries
) -> None:
    key, plaintext = api_key_create(account=account, role="viewer")
    other = OtherProcess(shared_cache)
    api_key_authenticate(plaintext=plaintext, client_ip="127.0.0.1")
    with django_assert_num_queries(0):  # this process's copy, its token still current
        api_key_authenticate(plaintext=plaintext, client_ip="127.0.0.1")
    other.run(
        "from accounts.models import ApiKey\nfrom accounts.services import api_key_revoke\n"
        f"api_key_revoke(key=ApiKey.objects.get(pk={key.pk}))"
    )
    with pytest.raises(NotAuthenticated):
        api_key_authenticate(plaintext=plaintext, client_ip="127.0.0.1")


# Slow (tests/tiers.py): another Python process beside a redis-server of its own.
@pytest.mark.slow
def test_a_plan_changed_in_another_process_reaches_the_next_call(
    transactional_db, shared_cache, account
) -> None:
    _, plaintext = api_key_create(account=account, role="viewer")
    other = OtherProcess(shared_cache)
    assert (
        api_key_authenticate(plaintext=plaintext, client_ip="127.0.0.1").account.plan.messages_per_day is None
    )
    other.run(
        "from accounts.models import Plan\n"
        f"plan = Plan.objects.get(pk={account.plan_id})\nplan.messages_per_day = 7\nplan.save()"
    )
    assert api_key_authenticate(plaintext=plaintext, client_ip="127.0.0.1").account.plan.messages_per_day == 7
