"""Helpers for messaging tests: sessions created, connected and paired through the real API."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from accounts.models import Account
from messaging.models import Session
from tests.messaging.pairing import pair_sandbox_session


@pytest.fixture
def admin_client(admin_key) -> APIClient:
    """Its own client, so `keyed_client(other_key)` in the same test does not change it."""
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=admin_key)
    return client


@pytest.fixture
def make_session(admin_client) -> Callable[..., dict]:
    def make(name: str = "support") -> dict:
        response = admin_client.post("/api/sessions", {"name": name}, format="json")
        assert response.status_code == 201, response.json()
        return response.json()

    return make


@pytest.fixture
def connected_session(admin_client) -> Callable[..., Session]:
    """A session paired through connect + the sandbox scan; its phone is 5511999990001 by default."""

    def make(name: str = "support", phone: str = "5511999990001") -> Session:
        return pair_sandbox_session(admin_client, name, phone)

    return make


@pytest.fixture
def session(connected_session) -> Session:
    """A connected sandbox session of the account, phone 5511999990001."""
    return connected_session()


def other_account_key(make_account, make_key, plan_name: str = "Empresarial") -> tuple[Account, str]:
    other = make_account(plan_name=plan_name)
    return other, make_key("admin", for_account=other)


@pytest.fixture(scope="session")
def engine_redis():
    """A private redis-server for the engine bus (never the shared one: fault tests restart it)."""
    from tests.messaging.engine_support import RedisServer

    server = RedisServer().start()
    yield server
    server.stop()


@pytest.fixture
def start_engine(transactional_db, engine_redis, settings):
    """Start `run_engine` processes; this process's RemoteEngine talks to them. Rows must be committed
    for the engine processes to see them, hence transactional_db. Every process is stopped at the end."""
    from tests.messaging.engine_support import REMOTE, EngineProcess

    if not engine_redis.ping():
        engine_redis.start()
    engine_redis.flush()
    settings.MESSAGING_ENGINE = REMOTE
    settings.ENGINE_REDIS_URL = engine_redis.url
    processes: list[EngineProcess] = []

    def start(**kwargs) -> EngineProcess:
        process = EngineProcess(engine_redis.url, **kwargs).start()
        processes.append(process)
        return process

    yield start
    for process in processes:
        process.stop()


@pytest.fixture
def graph(settings):
    """The local Graph API stand-in, with PONTE_GRAPH_API_URL pointing at it."""
    from tests.messaging.graph_standin import VERSION, GraphStandIn

    standin = GraphStandIn().start()
    settings.PONTE_GRAPH_API_URL = standin.url
    settings.PONTE_GRAPH_API_VERSION = VERSION
    yield standin
    standin.stop()


@pytest.fixture
def official_session(admin_client, graph) -> Callable[..., Session]:
    """An official session created through the API with the stand-in's credentials."""
    from tests.messaging.graph_standin import credentials_for

    def make(provider: str = "whatsapp_cloud", name: str = "official") -> Session:
        body = {"name": name, "provider": provider, "credentials": credentials_for(provider)}
        response = admin_client.post("/api/sessions", body, format="json")
        assert response.status_code == 201, response.json()
        return Session.objects.get(pk=response.json()["id"])

    return make


@pytest.fixture
def messenger(official_session) -> Session:
    return official_session("messenger")


@pytest.fixture
def meta_client() -> APIClient:
    """Meta's side of the inbound webhooks: no API key."""
    return APIClient()
