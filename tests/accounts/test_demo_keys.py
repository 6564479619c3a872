"""`manage.py demo_keys` (the end of `make run`, and `make keys`): the demo keys and URLs, printed again
on every run, fresh on demand."""

from __future__ import annotations

import re
import shutil
import stat
from collections.abc import Iterator
from importlib import import_module
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.test import override_settings

from accounts.models import ApiKey, Plan
from accounts.services import api_key_authenticate
from messaging.models import SandboxDevice, Session
from tests.localhttp import base_url, serving
from tests.module_data import loaded_for_the_module

KEY = r"ponte_[a-z0-9]{8}_[A-Za-z0-9_-]+"


@pytest.fixture(scope="module")
def demo_for_the_module(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Path]:
    """`load_demo` once for the module (tests/module_data.py); yields the var dir its keys file went to."""
    var_dir = tmp_path_factory.mktemp("demo-var")

    def load() -> None:
        if not Plan.objects.exists():  # flushed by a transactional test before (tests/conftest.py)
            import_module("accounts.migrations.0002_seed_plans").seed(apps, None)
        call_command("load_demo", stdout=StringIO())

    with override_settings(VAR_DIR=var_dir), loaded_for_the_module(django_db_blocker, load):
        yield var_dir


@pytest.fixture
def demo(demo_for_the_module, db, settings, tmp_path) -> None:
    """The state right after `load_demo`: its rows (the module's), its keys file (a fresh copy)."""
    for kept in demo_for_the_module.iterdir():
        shutil.copy2(kept, tmp_path / kept.name)
    settings.VAR_DIR = tmp_path


def banner(*args: str) -> str:
    out = StringIO()
    call_command("demo_keys", *args, stdout=out)
    return out.getvalue()


def keys_in(text: str) -> dict[str, str]:
    return dict(re.findall(rf"^    (admin|operator|viewer)\s+({KEY})$", text, flags=re.MULTILINE))


def test_every_run_prints_the_same_working_keys_and_the_urls(demo, settings) -> None:
    first, second = banner(), banner()
    assert keys_in(first) == keys_in(second) and set(keys_in(first)) == {"admin", "operator", "viewer"}
    for role, plaintext in keys_in(first).items():
        assert api_key_authenticate(plaintext=plaintext, client_ip="127.0.0.1").role == role
    base = settings.PONTE_BASE_URL
    for url in [f"{base}/account/", f"{base}/admin/", f"{base}/docs/", f"{base}/bonds/mcp", f"{base}/demo/"]:
        assert url in first
    (store,) = settings.VAR_DIR.glob("demo-keys-*.json")
    assert store.stat().st_mode & 0o777 == stat.S_IRUSR | stat.S_IWUSR


def test_fresh_keys_replace_and_revoke_the_old_ones(demo) -> None:
    old = keys_in(banner())
    new = keys_in(banner("--fresh"))
    assert set(new) == set(old) and not set(new.values()) & set(old.values())
    assert ApiKey.objects.filter(name__startswith="demo-", revoked_at__isnull=True).count() == 3
    assert keys_in(banner()) == new


def test_a_revoked_demo_key_is_replaced_on_the_next_run(demo) -> None:
    old = keys_in(banner())
    ApiKey.objects.filter(name="demo-viewer").update(revoked_at="2026-01-01T00:00:00Z")
    assert keys_in(banner())["viewer"] != old["viewer"]


def test_the_banner_prints_the_exports_the_docs_examples_read(demo, settings) -> None:
    settings.PONTE_BASE_URL = "http://127.0.0.1:8123"
    text = banner()
    (line,) = [line.strip() for line in text.splitlines() if line.strip().startswith("export ")]
    exports = dict(word.split("=", 1) for word in line.split()[1:])
    keys = keys_in(text)
    assert exports["PONTE"] == "http://127.0.0.1:8123"
    assert exports["ADMIN_KEY"] == exports["KEY"] == keys["admin"]
    assert exports["PONTE_KEY"] != exports["PONTE_API_KEY"]  # two bond keys: two 5-second intervals
    assert {exports["PONTE_KEY"], exports["PONTE_API_KEY"]} <= set(keys.values())
    assert exports["SID"] == str(Session.objects.get(name="demo-sandbox").pk)
    assert exports["WAITING_SID"] == str(Session.objects.get(name="demo-waiting").pk)


def test_the_waiting_demo_session_has_a_current_qr_code_when_printed(demo) -> None:
    waiting = Session.objects.get(name="demo-waiting")
    SandboxDevice.objects.filter(session_id=waiting.pk).update(qr_expires_at="2020-01-01T00:00:00Z")
    text = banner()
    assert f"/account/sessions/{waiting.pk}/" in text and "QR current until" in text
    from messaging.services.sessions import sandbox_scan

    waiting.refresh_from_db()
    assert sandbox_scan(session=waiting).status == "connected"  # no "The QR code expired"


# Slow (tests/tiers.py): waits out --wait's second.
@pytest.mark.slow
def test_wait_gives_up_when_the_server_never_answers(demo, settings) -> None:
    settings.PONTE_BASE_URL = "http://127.0.0.1:9"
    with pytest.raises(CommandError, match="did not answer"):
        banner("--wait", "1")


def answering(healthz: dict, readyz: dict | None = None):
    """A stand-in on the port: /healthz and /readyz answer these bodies."""
    import json
    from http.server import BaseHTTPRequestHandler

    class Answering(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps(healthz if self.path == "/healthz" else readyz or {"status": "ok"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    return serving(Answering)


def test_wait_prints_once_this_runs_own_web_answers(demo, settings) -> None:
    settings.PONTE_RUN_TOKEN = "run-1"
    with answering({"status": "ok", "run": "run-1"}) as server:
        settings.PONTE_BASE_URL = base_url(server)
        text = banner("--wait", "10")
    assert keys_in(text) and "DEGRADED" not in text


# Slow (tests/tiers.py): waits out --wait's second.
@pytest.mark.slow
def test_wait_never_prints_the_banner_for_another_server_on_the_port(demo, settings) -> None:
    settings.PONTE_RUN_TOKEN = "run-2"
    for other in ({"status": "ok"}, {"status": "ok", "run": "run-1"}):
        with answering(other) as server:
            settings.PONTE_BASE_URL = base_url(server)
            with pytest.raises(CommandError, match="with this run's token"):
                banner("--wait", "1")


def test_the_banner_says_what_is_degraded(demo, settings) -> None:
    settings.PONTE_RUN_TOKEN = "run-3"
    readyz = {"status": "degraded", "checks": {"database": "ok", "cache": "error: ConnectionError: refused"}}
    with answering({"status": "ok", "run": "run-3"}, readyz) as server:
        settings.PONTE_BASE_URL = base_url(server)
        text = banner("--wait", "10")
    assert "DEGRADED (cache down" in text and "cache: error: ConnectionError: refused" in text
    assert keys_in(text)


def test_the_qr_expiry_carries_its_utc_offset(demo) -> None:
    assert re.search(r"QR current until \d\d:\d\d:\d\d UTC[+-]\d\d:\d\d, live at", banner())
