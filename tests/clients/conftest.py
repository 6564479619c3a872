"""The client's suite runs against a live Ponte: pytest-django's live server on the test database."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO

import pytest
from ponte_client import Client

from accounts.models import ApiKey
from tests.clients import typescript_support


@pytest.fixture
def ponte(live_server, transactional_db, default_plans, settings) -> str:
    settings.BONDS_KEY_INTERVAL_SECONDS = 0  # the 5-second rule has its own tests
    from bonds import demo

    demo.load(stdout=StringIO(), count=20)
    return live_server.url


@pytest.fixture
def client(ponte, admin_key) -> Iterator[Client]:
    with Client(base_url=ponte, api_key=admin_key) as client:
        yield client


@pytest.fixture
def key_of_role(make_key):
    return lambda role: make_key(ApiKey.Role(role))


@pytest.fixture(scope="module")
def built() -> None:
    """The TypeScript client built into clients/typescript/dist (tests/clients/typescript_support.py)."""
    typescript_support.build()
