"""The live socket across processes: two web processes on one database and one Redis (an event emitted
through either reaches a socket on the other), and one web process on the embedded default (no Redis),
where events written in that process and in another one (this test's) both reach its socket; and a
stopping process closes its sockets (1012) and exits at once."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.conf import settings

from messaging.models import Session
from tests.faults import RedisServer
from tests.webhooks.live_support import Client, Closed, ProcfileWeb, web_env
from tests.webhooks.support import worker_database_url
from webhooks.services import emit

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def redis_url() -> Iterator[str]:
    """The suite's Redis, or a private redis-server when the suite runs on the embedded default."""
    if settings.REDIS_URL:
        yield settings.REDIS_URL
        return
    server = RedisServer().start()
    yield server.url
    server.stop()


def _inbound(web: ProcfileWeb, key: str, session: Session, text: str) -> None:
    reply = web.call(
        "POST",
        f"/api/sandbox/sessions/{session.id}/inbound",
        body={"event": "message", "from": "5511988880002", "text": text},
        headers={"X-API-Key": key},
    )
    assert reply.status == 201, reply.body


def _texts(client: Client, count: int) -> list[str]:
    return [frame["data"]["text"] for frame in client.events(count)]


def _paired_session(web: ProcfileWeb, key: str) -> Session:
    """A sandbox session created, connected and paired through the REST API (its state is in the
    database, so every web process can use it)."""
    keyed = {"X-API-Key": key}
    created = web.call("POST", "/api/sessions", body={"name": "main"}, headers=keyed)
    assert created.status == 201, created.body
    session_id = created.body["id"]
    assert web.call("POST", f"/api/sessions/{session_id}/connect", headers=keyed).status == 200
    scanned = web.call(
        "POST", f"/api/sandbox/sessions/{session_id}/scan", body={"phone": "5511999990001"}, headers=keyed
    )
    assert scanned.status == 200, scanned.body
    return Session.objects.get(pk=session_id)


def test_an_event_emitted_through_one_web_process_reaches_a_socket_on_another(redis_url, admin_key):
    env = web_env(worker_database_url(), redis_url)
    first, second = ProcfileWeb(env).start(), ProcfileWeb(env).start()
    sockets = []
    try:
        connected_session = _paired_session(first, admin_key)
        for web in (first, second):
            sockets.append(Client(web.ws_url(sessionId=str(connected_session.id)), key=admin_key))
            sockets[-1].ready()
        _inbound(first, admin_key, connected_session, "through the first")
        _inbound(second, admin_key, connected_session, "through the second")
        for client in sockets:
            assert _texts(client, 2) == ["through the first", "through the second"]
    finally:
        for client in sockets:
            client.close()
        first.stop()
        second.stop()


def test_one_web_process_on_the_embedded_default_streams_its_own_events_and_other_processes(
    admin_key, settings
):
    web = ProcfileWeb(web_env(worker_database_url(), "", PONTE_WS_POLL_SECONDS="0.2")).start()
    connected_session = _paired_session(web, admin_key)
    client = Client(web.ws_url(sessionId=str(connected_session.id)), key=admin_key)
    try:
        client.ready()
        _inbound(web, admin_key, connected_session, "in the web process")
        assert _texts(client, 1) == ["in the web process"]
        # This test process is "another process" (a worker, a command): the poll of the outbox finds it.
        settings.REDIS_URL = ""  # publishes nowhere, as a process on the embedded default
        emit(session_id=connected_session.id, name="message", data={"id": "M2", "text": "elsewhere"})
        assert _texts(client, 1) == ["elsewhere"]
    finally:
        client.close()
        web.stop()


def test_a_stopping_web_process_closes_its_sockets_with_1012_and_exits_at_once(admin_key, account):
    """uvicorn waits for every connection's task before it exits: a socket's task must end when its
    client leaves, and when the server asks it to."""
    session = Session.objects.create(account=account, name="main", status=Session.Status.CONNECTED)
    web = ProcfileWeb(web_env(worker_database_url(), settings.REDIS_URL)).start()
    leaving = Client(web.ws_url(sessionId=str(session.id)), key=admin_key)
    staying = Client(web.ws_url(sessionId=str(session.id)), key=admin_key)
    try:
        leaving.ready()
        staying.ready()
        leaving.close()
        started = time.monotonic()
        web.stop()
        assert time.monotonic() - started < 5
        closed = staying.frame()
        assert isinstance(closed, Closed) and closed.code == 1012
    finally:
        staying.close()
        web.stop()
