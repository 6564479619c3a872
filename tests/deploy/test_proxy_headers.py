"""Without PONTE_TRUSTED_PROXIES (the embedded default, no proxy in front) the web process believes no
X-Forwarded-For, whoever sends it: uvicorn's own default would believe any local caller's, which then
chose the address an API key's IP allow-list was checked against."""

from __future__ import annotations

import http.client
from collections.abc import Iterator

import pytest

from accounts.models import ApiKey
from accounts.services import api_key_create
from tests.deploy.support import free_port, start_web, stop

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def web_port(default_plans) -> Iterator[int]:
    port = free_port()
    web = start_web(port, PONTE_TRUSTED_PROXIES="")
    try:
        yield port
    finally:
        stop(web)


def _me(port: int, key: str, **headers: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/api/me", headers={"X-API-Key": key, **headers})
    response = connection.getresponse()
    response.read()
    return response.status


def test_a_local_caller_cannot_choose_its_address_with_x_forwarded_for_when_no_proxy_is_trusted(
    web_port, account
):
    _, elsewhere = api_key_create(account=account, role=ApiKey.Role.ADMIN, allowed_ips=["203.0.113.7"])
    _, here = api_key_create(account=account, role=ApiKey.Role.ADMIN, allowed_ips=["127.0.0.1"])
    assert _me(web_port, elsewhere, **{"X-Forwarded-For": "203.0.113.7"}) == 403
    assert _me(web_port, here, **{"X-Forwarded-For": "203.0.113.7"}) == 200
