"""The real library in CI: it loads from the pinned wheel (no download), builds a client on Ponte's
store, and an engine process whose `WHATSAPP_PROXY` points at a closed local port leaves the session
`disconnected` with a clear reason, answers without a 500 and stays alive. Every connection here goes
through such a proxy on 127.0.0.1: nothing dials beyond this machine."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.db import connection

from messaging.engines.whatsapp.library import bundled_binary, load
from messaging.engines.whatsapp.store import store_dsn
from messaging.models import Session

POSTGRES = not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# Slow (tests/tiers.py): a child Python loads the library.
@pytest.mark.slow
def test_the_library_loads_from_the_wheel_without_touching_the_network(tmp_path):
    """In a fresh interpreter, importing the library and building a client opens no socket at all."""
    script = (
        "import sys\n"
        "seen = []\n"
        "watched = ('socket.connect', 'socket.getaddrinfo')\n"
        "sys.addaudithook(lambda e, a: seen.append(e) if e in watched else None)\n"
        "from messaging.engines.whatsapp.library import load\n"
        "lib = load()\n"
        f"client = lib.NewClient({str(tmp_path / 'store.sqlite3')!r}, uuid='probe', new_device=True)\n"
        "assert client.uuid == b'probe', client.uuid\n"
        "print('sockets', len(seen))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=settings.BASE_DIR
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "sockets 0" in done.stdout
    assert bundled_binary() is not None and bundled_binary().stat().st_size > 1_000_000


@pytest.mark.django_db
def test_a_client_is_built_on_ponte_store():
    dsn = store_dsn()
    assert dsn.startswith("postgres://") if POSTGRES else dsn.endswith("whatsapp.sqlite3")
    client = load().NewClient(dsn, uuid="ponte-store-probe", new_device=True)
    assert client.name == dsn


# Engine processes need PostgreSQL (system check messaging.E004): not collected on the embedded default.
if POSTGRES:

    @pytest.mark.django_db(transaction=True)
    def test_a_closed_proxy_leaves_the_session_disconnected_with_a_reason_and_the_engine_alive(
        start_engine, admin_client
    ):
        port = closed_port()
        engine = start_engine(
            env={"ENGINE_DRIVER": "whatsapp", "WHATSAPP_PROXY": f"socks5://127.0.0.1:{port}"}
        )
        session_id = admin_client.post("/api/sessions", {"name": "wa"}, format="json").json()["id"]
        started = time.monotonic()
        response = admin_client.post(f"/api/sessions/{session_id}/connect")
        assert response.status_code == 502, response.content
        while time.monotonic() - started < 30:
            session = Session.objects.get(pk=session_id)
            if session.status_reason:
                break
            time.sleep(0.2)
        assert (session.status, session.status_reason) == ("disconnected", "proxy_unreachable")
        assert time.monotonic() - started < 30
        assert engine.process.poll() is None  # the engine process is alive
        with connection.cursor() as cursor:  # whatsmeow's store is Ponte's own database
            cursor.execute("SELECT to_regclass('whatsmeow_device') IS NOT NULL")
            assert cursor.fetchone()[0] is True
        assert admin_client.get(f"/api/sessions/{session_id}").json()["reason"] == "proxy_unreachable"
        # It keeps answering: a second attempt fails the same way, and other commands are answered.
        assert admin_client.post(f"/api/sessions/{session_id}/connect").status_code == 502
        assert admin_client.post(f"/api/sessions/{session_id}/logout").status_code == 200
        assert engine.process.poll() is None
