"""The per-request health check of a persistent PostgreSQL connection (core/postgresql, decision 0039): a
quiet connection passes it with a poll of its socket, no statement; one the server dropped or wrote to
meanwhile gets Django's own check (`SELECT 1`), and a dropped one is replaced before the next query.

What the client sends is read from libpq's own protocol trace (psycopg's `PGconn.trace`), not from
Django's query log: Django's check runs on a raw psycopg cursor that its log never sees.
"""

from __future__ import annotations

import os
import select
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from core.env import database_from_url
from tests.faults import kill_the_connection_of

POSTGRES = not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")


def test_a_postgres_database_url_uses_ponte_s_backend():
    assert database_from_url("postgres://u@127.0.0.1:5432/ponte")["ENGINE"] == "core.postgresql"


if POSTGRES:
    pytestmark = pytest.mark.django_db(transaction=True)

    @contextmanager
    def traced() -> Iterator[list[str]]:
        """The protocol messages the client sends meanwhile (libpq's trace, "F" lines)."""
        sent: list[str] = []
        handle, name = tempfile.mkstemp(prefix="pgtrace-")
        connection.connection.pgconn.trace(handle)
        try:
            yield sent
        finally:
            connection.connection.pgconn.untrace()
            os.close(handle)
            lines = Path(name).read_text().splitlines()
            os.unlink(name)
            sent.extend(line.split("\t", 2)[-1] for line in lines if "\tF\t" in line)

    def _readable_within(seconds: float) -> bool:
        poller = select.poll()
        poller.register(connection.connection.fileno(), select.POLLIN)
        return bool(poller.poll(seconds * 1000))

    def _checked_again() -> None:
        """What Django does as a request, a task or a wake-up begins: the check is due again."""
        connection.health_check_done = False
        connection.close_if_health_check_failed()

    def _backend_pid() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]

    def test_a_quiet_connection_passes_the_health_check_without_a_statement():
        pid = _backend_pid()
        held = connection.connection
        with traced() as sent:
            _checked_again()
        assert sent == []
        assert connection.connection is held and connection.health_check_done
        assert _backend_pid() == pid

    def test_a_connection_the_server_terminated_is_replaced_before_its_next_query():
        pid = _backend_pid()
        kill_the_connection_of(connection)
        assert _readable_within(5), "the server's FATAL notice never reached the socket"
        _checked_again()
        assert connection.connection is None  # closed by the check, not by a failed query
        assert _backend_pid() != pid

    def test_a_connection_with_something_to_read_gets_django_s_select_1():
        pid = _backend_pid()
        with connection.cursor() as cursor:
            cursor.execute("LISTEN ponte_health_check")
        params = {**connection.get_connection_params()}
        params.pop("cursor_factory", None)
        params.pop("context", None)
        with psycopg.connect(**params, autocommit=True) as other:
            other.execute("NOTIFY ponte_health_check")
        assert _readable_within(5)
        with traced() as sent:
            _checked_again()
        assert any("SELECT 1" in message for message in sent), sent
        assert _backend_pid() == pid  # usable: kept
        with connection.cursor() as cursor:
            cursor.execute("UNLISTEN *")

    def test_the_check_still_runs_once_per_request():
        _backend_pid()
        _checked_again()
        kill_the_connection_of(connection)
        assert _readable_within(5)
        connection.close_if_health_check_failed()  # done for this request: Django's rule, unchanged
        assert connection.connection is not None
        connection.close()
