"""Settings, health probes and the OpenAPI schema."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core.management import call_command

from config.celery import app as celery_app


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}} | env
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=120
    )


# Slow (tests/tiers.py): a child Python reads the settings at start-up.
@pytest.mark.slow
def test_settings_refuse_to_start_without_a_secret_key_when_debug_is_off() -> None:
    result = _python(
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup()", DEBUG="0"
    )
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


# Slow (tests/tiers.py): a child Python reads the settings at start-up.
@pytest.mark.slow
def test_settings_start_with_no_environment_at_all() -> None:
    result = _python(
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup();"
        "from django.conf import settings; print(settings.DATABASES['default']['ENGINE'], settings.DEBUG)",
        DATABASE_URL="",
        REDIS_URL="",
    )
    assert result.returncode == 0, result.stderr
    assert "sqlite3 True" in result.stdout


# Slow (tests/tiers.py): a child Python reads the settings at start-up.
@pytest.mark.slow
def test_settings_refuse_to_start_without_secret_keys_when_debug_is_off() -> None:
    result = _python(
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup()",
        DEBUG="0",
        SECRET_KEY="x" * 50,
        PONTE_SECRET_KEYS="",
    )
    assert result.returncode != 0
    assert "PONTE_SECRET_KEYS is not set" in result.stderr


# Slow (tests/tiers.py): a child Python reads the settings at start-up.
@pytest.mark.slow
def test_settings_refuse_a_secret_key_that_is_not_a_fernet_key() -> None:
    result = _python(
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup()",
        PONTE_SECRET_KEYS="c2hvcnQ=",
    )
    assert result.returncode != 0
    assert "PONTE_SECRET_KEYS: key 1 is not a Fernet key (5 bytes instead of 32)" in result.stderr


# Slow (tests/tiers.py): child Pythons read the settings at start-up.
@pytest.mark.slow
def test_under_debug_a_development_key_derived_from_secret_key_needs_no_setting() -> None:
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup();"
        "from django.conf import settings; print(settings.PONTE_SECRET_KEYS)"
    )
    first, again = (_python(code, PONTE_SECRET_KEYS="", SECRET_KEY="s" * 50) for _ in range(2))
    other = _python(code, PONTE_SECRET_KEYS="", SECRET_KEY="t" * 50)
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout != other.stdout


# Slow (tests/tiers.py): a child Python reads the settings at start-up.
@pytest.mark.slow
def test_a_bad_instance_key_failure_rate_is_reported_in_plain_words() -> None:
    result = _python(
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup()",
        PONTE_INSTANCE_KEY_FAILURE_RATE="ten a minute",
    )
    assert "PONTE_INSTANCE_KEY_FAILURE_RATE must look like 10/m" in result.stderr


# Slow (tests/tiers.py): a child Python reads the settings at start-up.
@pytest.mark.slow
def test_a_bad_boolean_is_reported_in_plain_words() -> None:
    result = _python(
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup()",
        DEBUG="maybe",
    )
    assert "DEBUG must be one of" in result.stderr


def test_system_checks_report_a_bad_allow_list(settings) -> None:
    from django.core.checks import run_checks

    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = ["not-a-network"]
    messages = [str(m) for m in run_checks()]
    assert any("PONTE_WEBHOOK_ALLOW_NETWORKS has a bad entry" in m for m in messages)


def test_healthz_answers_while_the_process_is_up(client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}


def test_healthz_names_the_make_run_start_it_belongs_to(client, settings) -> None:
    settings.PONTE_RUN_TOKEN = "3f2a9c"
    assert client.get("/healthz").json() == {"status": "ok", "run": "3f2a9c"}


@pytest.mark.django_db
def test_readyz_checks_database_cache_and_broker(client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    assert response.json()["checks"] == {"database": "ok", "cache": "ok", "broker": "ok"}


# Slow (tests/tiers.py): waits for the broker connection to give up.
@pytest.mark.slow
@pytest.mark.django_db
def test_readyz_names_the_broker_when_it_is_unreachable_and_stays_in_service(client) -> None:
    original = celery_app.conf.broker_url
    celery_app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        response = client.get("/readyz")
    finally:
        celery_app.conf.broker_url = original
    # The API keeps answering without the broker (docs/operations.md, "Redis outages"): degraded, not 503.
    assert response.status_code == 200 and response.json()["status"] == "degraded"
    checks = response.json()["checks"]
    assert checks["database"] == "ok" and checks["broker"].startswith("error")


def test_the_openapi_schema_generates_without_warnings(tmp_path) -> None:
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(target))
    assert "openapi: 3" in target.read_text()


@pytest.mark.django_db
def test_the_docs_ui_and_schema_are_served(client) -> None:
    assert client.get("/docs/").status_code == 200
    assert client.get("/schema/").status_code == 200
