"""The web process as `make run` starts it (the Procfile's web line), under a burst of parallel requests:
database connections stay within PONTE_WEB_THREADS and nothing answers 5xx.

Before issue 13, 100 parallel requests opened 92 PostgreSQL connections (one per request, kept for
CONN_MAX_AGE), the server ran out of them and answered 500 and /readyz 503 until restarted.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import database_url_of_test_db

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
THREADS = 4
BURST = 200
APPLICATION_NAME = "ponte-web-burst-test"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def procfile_web_command() -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith("web:"):
            return line.removeprefix("web:").strip()
    raise AssertionError("the Procfile has no web line")


def _server_database_url() -> str:
    url = database_url_of_test_db()
    # Tags the server's PostgreSQL connections, so they can be told from the test's own.
    return url + f"?application_name={APPLICATION_NAME}" if url.startswith("postgres") else url


def _connection_counter(server_pid: int) -> Callable[[], int]:
    """Open database connections of the server: pg_stat_activity on PostgreSQL; on SQLite, the server's
    open file descriptors on the database file (one per connection)."""
    if connection.vendor == "postgresql":

        def count() -> int:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = %s",
                    [connection.settings_dict["NAME"], APPLICATION_NAME],
                )
                return cursor.fetchone()[0]

        return count
    database = os.path.realpath(connection.settings_dict["NAME"])

    def count_files() -> int:
        opened = 0
        for fd in Path(f"/proc/{server_pid}/fd").iterdir():
            with contextlib.suppress(OSError):  # closed meanwhile
                opened += os.path.realpath(os.readlink(fd)) == database
        return opened

    return count_files


@pytest.fixture
def web_process() -> Iterator[tuple[int, int]]:
    """The Procfile's web line on a free port, on the test database, with PONTE_WEB_THREADS=4 and
    persistent connections (the setting that let them pile up). Yields (port, server pid)."""
    port = _free_port()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PONTE_HOST": "127.0.0.1",
        "PONTE_PORT": str(port),
        "DATABASE_URL": _server_database_url(),
        "PONTE_WEB_THREADS": str(THREADS),
        "DB_CONN_MAX_AGE": "60",
        "LOG_LEVEL": "WARNING",
        # The MCP calls are anonymous (previews): lift the per-address limit so each does its reads.
        "PONTE_ANONYMOUS_REQUESTS_PER_MINUTE": "100000",
    }
    server = subprocess.Popen(
        ["sh", "-c", "exec " + procfile_web_command()], cwd=ROOT, env=env, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 60
        while _get(port, "/healthz")[0] != 200:
            assert server.poll() is None, "the web process exited while starting"
            assert time.monotonic() < deadline, "the web process did not answer within 60 s"
            time.sleep(0.2)
        yield port, server.pid
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def _get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    try:
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        client.request("GET", path, headers=headers or {})
        response = client.getresponse()
        return response.status, response.read()
    except OSError:
        return 0, b""


MCP_LIST_BONDS = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_bonds", "arguments": {}}}
).encode()
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def test_a_burst_of_200_parallel_requests_gets_no_5xx_and_at_most_the_pools_database_connections(
    web_process, admin_key
):
    """Half keyed REST calls (Django on the pool), half MCP tool calls (the SDK on the event loop, its
    ORM work on the same pool)."""
    port, server_pid = web_process
    count_connections = _connection_counter(server_pid)
    headers = {"X-API-Key": admin_key}
    statuses: list[int] = []
    mcp_errors: list[object] = []
    seen: list[int] = []
    start = threading.Barrier(BURST + 1)
    done = threading.Event()

    def one_request(mcp: bool) -> None:
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        client.connect()
        start.wait()
        if mcp:
            client.request("POST", "/bonds/mcp", body=MCP_LIST_BONDS, headers=MCP_HEADERS)
        else:
            client.request("GET", "/api/me", headers=headers)
        response = client.getresponse()
        body = response.read()
        statuses.append(response.status)
        if mcp and response.status == 200:
            reply = json.loads(body)
            if "error" in reply or reply["result"].get("isError"):
                mcp_errors.append(reply)

    def sample() -> None:
        try:
            while not done.is_set():
                seen.append(count_connections())
                time.sleep(0.05)
        finally:
            connection.close()  # this thread's own connection

    clients = [threading.Thread(target=one_request, args=(number % 2 == 1,)) for number in range(BURST)]
    for client in clients:
        client.start()
    sampler = threading.Thread(target=sample)
    sampler.start()
    start.wait()
    for client in clients:
        client.join(timeout=120)
    done.set()
    sampler.join()

    assert sorted(set(statuses)) == [200] and len(statuses) == BURST
    assert mcp_errors == []
    assert 1 <= max(seen) <= THREADS, seen
    assert count_connections() <= THREADS
    # Service is normal right after.
    ready_status, ready_body = _get(port, "/readyz")
    assert ready_status == 200, ready_body
    assert _get(port, "/api/me", headers)[0] == 200


def test_the_web_line_of_the_procfile_takes_its_host_and_port_from_the_environment():
    command = shlex.split(procfile_web_command())
    assert command[:2] == ["uvicorn", "config.asgi:application"]
    assert command[command.index("--host") + 1] == "${PONTE_HOST:-127.0.0.1}"
    assert command[command.index("--port") + 1] == "${PONTE_PORT:-8000}"
