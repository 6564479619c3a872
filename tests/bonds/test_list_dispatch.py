"""GET /bonds/api/ on DRF's stock path, customised only through its hooks (bonds.api.BondListApi): the
headers DRF adds, refusals of other methods and errors in the bonds shape, `format` read as the list's own
parameter, never as DRF's renderer override."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import OperationalError, connection

from tests.bonds.test_list_api import URL, bonds  # noqa: F401  (bonds: the fixture)

pytestmark = pytest.mark.django_db


def test_a_get_carries_the_allow_header_drf_gave_it(api_client, bonds):  # noqa: F811
    for query in ("", "?format=csv", "?format=csv&locale=pt-BR&bank=77"):
        response = api_client.get(URL + query)
        assert response.status_code == 200
        assert response["Allow"] == "GET, HEAD, OPTIONS"
        assert response["X-Ponte-Status"] == "preview"


def test_other_methods_are_refused_in_the_bonds_error_shape(api_client):
    response = api_client.post(URL, data={}, format="json")
    assert response.status_code == 200  # the bonds interface answers every outcome with 200
    assert response.json() == {
        "response": {"status": "method_not_allowed", "description": 'Method "POST" not allowed.'},
        "bonds": [],
    }
    assert api_client.options(URL).status_code == 200
    assert api_client.head(URL).status_code == 200


def test_a_database_failure_in_a_get_answers_call_again_later_in_the_bonds_shape(api_client, bonds):  # noqa: F811
    cache.clear()  # the data version must be read from the database

    def refuse(execute, sql, params, many, context):
        raise OperationalError("the database went away")

    with connection.execute_wrapper(refuse):
        response = api_client.get(URL)  # the preview: the data version is read from the database
    # A database outage is retryable (a 503 elsewhere): the bond list says so with its one "call again
    # later" status, the description saying why and Retry-After when (core/errors.py).
    assert response.status_code == 200
    assert response.json() == {
        "response": {
            "status": "rate_limited",
            "description": "The database is temporarily unavailable; retry after a few seconds.",
        },
        "bonds": [],
    }
    assert response["Retry-After"] == "2"


def test_a_query_key_reads_like_a_bearer_key(api_client, bonds, make_key):  # noqa: F811
    from accounts.models import ApiKey

    key = make_key(ApiKey.Role.VIEWER)
    by_query = api_client.get(f"{URL}?key={key}&key=")
    assert by_query["X-Ponte-Status"] == "preview"  # the last `key` wins, as QueryDict.get reads it
    assert api_client.get(f"{URL}?key=&key={key}")["X-Ponte-Status"] != "preview"


def test_format_and_accept_never_make_drf_refuse_the_list(api_client, bonds):  # noqa: F811
    for query, accept, content_type in (
        ("?format=xml", "application/json", "application/json"),
        ("?format=csv", "application/xml", "text/csv; charset=utf-8"),
        ("", "text/csv", "application/json"),
    ):
        response = api_client.get(URL + query, HTTP_ACCEPT=accept)
        assert (response.status_code, response["Content-Type"]) == (200, content_type), query
        assert response["X-Ponte-Status"] == "preview"
