"""The OpenAPI document lists every filter of each list's FilterSet as a query parameter of its GET,
typed as the server reads it (core.openapi.filterset_parameters)."""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from bonds.filters import BondFilterSet
from messaging.filters import MessageFilterSet, SessionFilterSet
from webhooks.registered.filters import WebhookFilterSet

LISTS = {
    "/bonds/api/": BondFilterSet,
    "/api/sessions": SessionFilterSet,
    "/gateway/sessions": SessionFilterSet,
    "/api/messages": MessageFilterSet,
    "/gateway/webhooks": WebhookFilterSet,
}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def query_parameters(schema: dict[str, Any], path: str, method: str = "get") -> dict[str, dict[str, Any]]:
    operation = schema["paths"][path][method]
    return {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "query"}


@pytest.mark.parametrize(("path", "filterset"), LISTS.items())
def test_every_filter_of_a_list_is_a_query_parameter_of_its_get(schema, path, filterset) -> None:
    assert set(filterset.base_filters) <= set(query_parameters(schema, path))


@pytest.mark.parametrize(
    ("path", "name", "parameter_schema", "required"),
    [
        ("/bonds/api/", "product", {"type": "string"}, False),
        ("/bonds/api/", "index", {"type": "string"}, False),
        ("/bonds/api/", "bank", {"type": "string"}, False),
        ("/bonds/api/", "tax_free", {"type": "integer", "enum": [0, 1]}, False),
        ("/bonds/api/", "fgc", {"type": "integer", "enum": [0, 1]}, False),
        ("/api/sessions", "status", {"type": "string", "minLength": 1}, False),
        ("/gateway/sessions", "status", {"type": "string", "minLength": 1}, False),
        ("/api/messages", "sessionId", {"type": "string", "minLength": 1, "maxLength": 64}, True),
        ("/api/messages", "chat", {"type": "string", "minLength": 1, "maxLength": 100}, False),
        ("/gateway/webhooks", "sessionId", {"type": "string"}, False),
    ],
)
def test_each_filter_parameter_has_the_type_and_enum_the_server_reads(
    schema, path, name, parameter_schema, required
) -> None:
    parameter = query_parameters(schema, path)[name]
    assert parameter["schema"] == parameter_schema
    assert parameter.get("required", False) is required


def test_the_bond_filter_descriptions_name_the_accepted_values(schema) -> None:
    parameters = query_parameters(schema, "/bonds/api/")
    assert "cdb" in parameters["product"]["description"] and "misc" in parameters["product"]["description"]
    assert "`+` sent as `%2B`" in parameters["index"]["description"]
    assert parameters["tax_free"]["description"] == "1: only tax-exempt; 0: only taxed"


@pytest.mark.parametrize(
    ("path", "method"),
    [("/api/sessions", "post"), ("/gateway/webhooks", "post"), ("/gateway/webhooks/{webhook_id}", "get")],
)
def test_operations_that_do_not_list_take_no_filter_parameters(schema, path, method) -> None:
    assert not set(query_parameters(schema, path, method)) & {"status", "sessionId"}


def admits_empty(parameter_schema: dict[str, Any]) -> bool:
    """Whether a query value of "" is valid by the declared schema (as a client generator reads it)."""
    if parameter_schema.get("type") in {"integer", "number", "boolean"}:
        return False
    if "enum" in parameter_schema:
        return "" in parameter_schema["enum"]
    return parameter_schema.get("minLength", 0) == 0


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/sessions", "/gateway/sessions", "/api/messages", "/gateway/webhooks"])
def test_an_optional_filter_the_server_refuses_empty_is_declared_non_empty(
    schema, keyed_client, admin_key, account, path
) -> None:
    from messaging.models import Session

    session = Session.objects.create(account=account, name="listed")
    client = keyed_client(admin_key)
    base = {"sessionId": str(session.pk)} if path == "/api/messages" else {}
    optional = {name: p for name, p in query_parameters(schema, path).items() if not p.get("required")}
    assert optional
    for name, parameter in optional.items():
        reply = client.get(path, {**base, name: ""})
        assert reply.status_code in (200, 400), (name, reply.status_code)
        assert (reply.status_code == 200) == admits_empty(parameter["schema"]), (name, reply.content[:200])
