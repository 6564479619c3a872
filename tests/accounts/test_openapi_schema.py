"""The OpenAPI document: valid for openapi-spec-validator, and true to what each operation answers,
errors included (declared centrally by core.openapi.AutoSchema)."""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate

from core.errors import BONDS_ERROR_STATUSES

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict[str, Any]):
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def error_ref(operation: dict[str, Any], code: str) -> str:
    return operation["responses"][code]["content"]["application/json"]["schema"]["$ref"]


def validator_for(schema: dict[str, Any], component: str) -> OAS31Validator:
    # The component's references point into the document's own components.
    return OAS31Validator({"$ref": f"#/components/schemas/{component}", "components": schema["components"]})


def test_the_schema_passes_openapi_spec_validator(schema) -> None:
    validate(schema)


def test_no_string_default_breaks_its_own_min_length(schema) -> None:
    for name, component in schema["components"]["schemas"].items():
        for field, spec in component.get("properties", {}).items():
            if spec.get("default") == "":
                assert spec.get("minLength", 0) == 0, f"{name}.{field}"


@pytest.mark.parametrize(
    ("prefix", "component"),
    [("/api/", "MessagingError"), ("/gateway/", "GatewayError"), ("/instances/", "InstanceError")],
)
def test_every_operation_declares_400_and_404_in_its_interfaces_error_shape(
    schema, prefix, component
) -> None:
    seen = 0
    for path, method, operation in operations(schema):
        if path.startswith(prefix):
            seen += 1
            for code in ("400", "404"):
                assert error_ref(operation, code) == f"#/components/schemas/{component}", (path, method, code)
    assert seen >= 3


def test_keyed_operations_declare_401_403_and_429(schema) -> None:
    for path, method, operation in operations(schema):
        # A signed media link is its own credential: no key, no key errors.
        if path.startswith(("/api/", "/gateway/")) and operation.get("security") != [{}]:
            assert {"401", "403", "429"} <= set(operation["responses"]), (path, method)


def test_operations_with_a_body_declare_413_and_reads_do_not(schema) -> None:
    for path, method, operation in operations(schema):
        if path.startswith("/bonds/"):
            continue
        assert ("413" in operation["responses"]) == (method in ("post", "put", "patch")), (path, method)


def test_operations_that_reach_the_engine_declare_409_and_502(schema) -> None:
    responses = schema["paths"]["/api/messages/send"]["post"]["responses"]
    assert {"409", "502"} <= set(responses)
    assert "502" not in schema["paths"]["/api/keys"]["get"]["responses"]


def test_the_messaging_error_component_has_the_contract_fields(schema) -> None:
    component = schema["components"]["schemas"]["MessagingError"]
    assert set(component["required"]) == {"statusCode", "error", "message"}
    assert schema["components"]["schemas"]["GatewayError"]["required"] == ["error"]


def test_deletes_declare_the_200_body_they_answer(schema) -> None:
    deletes = [(path, op) for path, method, op in operations(schema) if method == "delete"]
    assert len(deletes) >= 3
    for path, operation in deletes:
        assert "204" not in operation["responses"], path
        assert "application/json" in operation["responses"]["200"]["content"], path


def test_the_key_list_is_declared_as_a_data_envelope(schema) -> None:
    ref = schema["paths"]["/api/keys"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    component = schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]
    assert component["properties"]["data"]["type"] == "array"


def test_bonds_declares_bearer_and_query_key_and_no_key_at_all(schema) -> None:
    operation = schema["paths"]["/bonds/api/"]["get"]
    assert operation["security"] == [{"BondsBearer": []}, {"BondsQueryKey": []}, {}]
    schemes = schema["components"]["securitySchemes"]
    assert schemes["BondsBearer"] == {**schemes["BondsBearer"], "type": "http", "scheme": "bearer"}
    assert (schemes["BondsQueryKey"]["in"], schemes["BondsQueryKey"]["name"]) == ("query", "key")


def test_bonds_declares_only_200_and_every_status_an_error_can_give(schema) -> None:
    operation = schema["paths"]["/bonds/api/"]["get"]
    assert list(operation["responses"]) == ["200"]
    assert set(operation["responses"]["200"]["content"]) == {"application/json", "text/csv"}
    enum = set(schema["components"]["schemas"]["BondListStatusEnum"]["enum"])
    assert {"error", "bad_request", "payload_too_large"} <= enum and set(BONDS_ERROR_STATUSES) <= enum


def test_instance_statistics_admit_a_null_last_delivery(schema) -> None:
    validator = validator_for(schema, "InstanceWebhookStatisticsDelivery")
    delivery = {"queued": 0, "attempts": 0, "ok": 0, "clientError": 0, "failed": 0, "avgMs": 0, "recent": []}
    validator.validate({**delivery, "last": None})
    validator.validate({**delivery, "last": {"ts": "t", "status": 200, "ms": 3, "outcome": "ok"}})
    assert not validator.is_valid({**delivery, "last": "yesterday"})


def test_the_qr_code_is_json_in_base64_and_raw_and_a_png_only_as_image(schema) -> None:
    content = schema["paths"]["/api/sessions/{session_id}/qrcode"]["get"]["responses"]["200"]["content"]
    assert set(content) == {"application/json", "image/png"}
    validator = validator_for(schema, content["application/json"]["schema"]["$ref"].rsplit("/", 1)[1])
    raw = {"qrCode": "2@abc", "expiresAt": "2026-11-22T04:01:00+00:00"}
    validator.validate(raw)
    base64 = {"sessionId": "8f0c0f4e-8c4a-4a8e-9b1e-2f1c3d4e5f60", "status": "qr", "qrCodeImage": "data:,"}
    validator.validate({**raw, **base64})
    assert not validator.is_valid({"qrCode": "2@abc"})


def test_keyed_replies_declare_the_rate_limit_headers_and_429_its_retry_after(schema) -> None:
    responses = schema["paths"]["/api/sessions"]["get"]["responses"]
    declared = set(responses["200"]["headers"])
    assert {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} <= declared
    assert responses["429"]["headers"]["Retry-After"]["required"] is True
    assert "headers" not in schema["paths"]["/bonds/api/"]["get"]["responses"]["200"]


def test_every_key_scheme_and_the_description_say_where_keys_come_from(schema) -> None:
    schemes = schema["components"]["securitySchemes"]
    for name in ("ApiKeyHeader", "BondsBearer", "BondsQueryKey"):
        assert "`/account/keys/`" in schemes[name]["description"], name
        assert "admin" in schemes[name]["description"], name
    assert "/account/keys/" in schema["info"]["description"] and "/admin/" in schema["info"]["description"]


def test_swagger_ui_shows_where_keys_come_from(client, db) -> None:
    page = client.get("/schema/", HTTP_ACCEPT="application/json")  # what /docs/ (Swagger UI) renders
    assert page.status_code == 200 and b"/account/keys/" in page.content
