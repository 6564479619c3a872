"""A database connection lost in the middle of a request: 503 SERVICE_UNAVAILABLE with Retry-After in the
interface's shape, never 500; a GET or HEAD is run once more on a new connection (core/db_outage.py).

On PostgreSQL the request's backend is terminated for real (pg_terminate_backend from another
connection) just before one of the request's queries, through Django's execute wrapper. SQLite has no
connection to lose (a file opened by the process); what makes it unavailable is another writer holding
its lock past the busy timeout (every request's transaction starts IMMEDIATE, reads included): the same
503, not retried (the connection is fine, and a retry would wait as long again). Every test runs on
both databases, each with its own fault (CI runs the suite on both).
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django.test import Client

from messaging.models import Session
from tests.faults import kill_the_connection_of
from webhooks.models import Webhook

pytestmark = pytest.mark.django_db(transaction=True)


class BackendKiller:
    """Django execute wrapper: terminates the request's PostgreSQL backend (from another connection) just
    before a query on `table`, the first `times` times one runs: the request has already queried other
    tables by then, so the connection is lost in the middle of it."""

    def __init__(self, table: str, *, times: int = 1) -> None:
        self.table, self.times = table, times
        self.kills = 0

    def __call__(self, execute, sql, params, many, context):
        if self.kills < self.times and f'"{self.table}"' in sql:
            self.kills += 1
            kill_the_connection_of(context["connection"])
        return execute(sql, params, many, context)


@contextmanager
def killing(killer: BackendKiller) -> Iterator[BackendKiller]:
    try:
        with connection.execute_wrapper(killer):
            yield killer
    finally:
        connection.close()  # never hand a killed connection to what follows


@contextmanager
def sqlite_writer_lock() -> Iterator[None]:
    """Another connection holds SQLite's write lock; the request's busy timeout is cut to 0.1 s."""
    holder = sqlite3.connect(connection.settings_dict["NAME"], timeout=1, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    timeout = connection.settings_dict["OPTIONS"].get("timeout")
    connection.close()
    connection.settings_dict["OPTIONS"]["timeout"] = 0.1
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        connection.close()
        connection.settings_dict["OPTIONS"]["timeout"] = timeout


@pytest.fixture
def keyed(admin_key) -> Client:
    return Client(HTTP_X_API_KEY=admin_key, raise_request_exception=False)


def _session_list_twice(keyed: Client):
    """GET /api/sessions, then a second one that must find everything working again."""
    return keyed.get("/api/sessions"), keyed.get("/api/sessions")


def test_a_read_whose_connection_is_lost_once_is_retried_and_answers_200(keyed, account) -> None:
    Session.objects.create(account=account, name="kept")
    if connection.vendor != "postgresql":
        with sqlite_writer_lock():
            assert keyed.get("/api/sessions").status_code == 503
        reply = keyed.get("/api/sessions")  # the lock released, the next call answers
    else:
        with killing(BackendKiller("messaging_session", times=1)) as killer:
            reply = keyed.get("/api/sessions")
        assert killer.kills == 1
    assert reply.status_code == 200, reply.content
    assert [s["name"] for s in reply.json()["data"]] == ["kept"]


def test_a_read_whose_connection_is_lost_twice_answers_503_with_retry_after(keyed, account) -> None:
    killer = BackendKiller("messaging_session", times=2)
    with sqlite_writer_lock() if connection.vendor != "postgresql" else killing(killer):
        reply = keyed.get("/api/sessions")
    if connection.vendor == "postgresql":
        assert killer.kills == 2  # the first attempt and its one retry
    assert reply.status_code == 503
    assert int(reply["Retry-After"]) > 0
    body = reply.json()
    assert (body["statusCode"], body["error"]) == (503, "SERVICE_UNAVAILABLE")
    assert body["message"] and body["retryAfter"] == int(reply["Retry-After"])
    assert keyed.get("/api/sessions").status_code == 200


def test_a_write_whose_connection_is_lost_answers_503_once_and_keeps_nothing(keyed, account) -> None:
    killer = BackendKiller("messaging_session")
    with sqlite_writer_lock() if connection.vendor != "postgresql" else killing(killer):
        reply = keyed.post("/api/sessions", {"name": "lost"}, content_type="application/json")
    assert reply.status_code == 503, reply.content
    assert reply.json()["error"] == "SERVICE_UNAVAILABLE" and int(reply["Retry-After"]) > 0
    if connection.vendor == "postgresql":
        assert killer.kills == 1  # not retried: a write is not safe to repeat
    assert not Session.objects.filter(name="lost").exists()


def test_the_gateway_answers_a_lost_connection_in_its_own_shape(admin_key, account) -> None:
    gateway = Client(HTTP_X_API_KEY=admin_key, raise_request_exception=False)
    session = Session.objects.create(account=account, name="hooked")
    body = {"sessionId": str(session.pk), "url": "https://93.184.215.14/hook", "events": ["message"]}
    killer = BackendKiller("webhooks_webhook")
    with sqlite_writer_lock() if connection.vendor != "postgresql" else killing(killer):
        reply = gateway.post("/gateway/webhooks", body, content_type="application/json")
    assert reply.status_code == 503, reply.content
    assert reply.json() == {"error": "Service temporarily unavailable"}
    assert int(reply["Retry-After"]) > 0
    assert not Webhook.objects.exists()
    killer = BackendKiller("messaging_session", times=2)
    with sqlite_writer_lock() if connection.vendor != "postgresql" else killing(killer):
        reply = gateway.get("/gateway/sessions")  # a read, lost on its retry too
    assert reply.status_code == 503 and reply.json() == {"error": "Service temporarily unavailable"}


def test_the_instance_interface_answers_a_lost_connection_in_its_own_shape(account) -> None:
    session = Session.objects.create(account=account, name="instance")
    path = f"/instances/{session.instance_key}/instance"
    client = Client(raise_request_exception=False)
    killer = BackendKiller("messaging_session", times=2)
    with sqlite_writer_lock() if connection.vendor != "postgresql" else killing(killer):
        reply = client.get(path)
    assert reply.status_code == 503, reply.content
    body = reply.json()
    assert (body["status"], body["error"]) == (503, "SERVICE_UNAVAILABLE") and body["message"]
    assert int(reply["Retry-After"]) > 0
    assert client.get(path).status_code == 200


def test_a_plain_django_view_whose_connection_is_lost_answers_503_not_500() -> None:
    """Outside DRF (the channels' webhook view, the account area): Django's 500 handler sees the cause."""
    client = Client(raise_request_exception=False)
    path = f"/channels/whatsapp_cloud/{uuid.uuid4()}/webhook?hub.mode=subscribe"
    killer = BackendKiller("messaging_channelaccount", times=2)
    with sqlite_writer_lock() if connection.vendor != "postgresql" else killing(killer):
        reply = client.get(path)
    if connection.vendor == "postgresql":
        assert killer.kills == 2  # retried once, lost again
    assert reply.status_code == 503 and int(reply["Retry-After"]) > 0, reply.content
    assert client.get(path).status_code == 404
