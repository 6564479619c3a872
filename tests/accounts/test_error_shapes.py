"""Malformed JSON, wrong types, unknown routes and wrong methods answer in each interface's shape."""

from __future__ import annotations

import pytest

from accounts.models import ApiKey

pytestmark = pytest.mark.django_db


def test_malformed_json_is_a_messaging_validation_error(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post("/api/keys", "{not json", content_type="application/json")
    body = response.json()
    assert response.status_code == 400
    assert body["statusCode"] == 400 and body["error"] == "VALIDATION_ERROR"
    assert body["message"].startswith("Malformed request body")


def test_wrong_types_are_a_messaging_validation_error_naming_the_field(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post("/api/keys", {"role": 5, "allowed_ips": "x"}, format="json")
    body = response.json()
    assert response.status_code == 400 and body["error"] == "VALIDATION_ERROR"
    assert "role" in body["message"] and "allowed_ips" in body["message"]
    assert ApiKey.objects.count() == 1


def test_a_wrong_content_type_is_a_bad_request(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post("/api/keys", "role=viewer", content_type="text/plain")
    assert response.status_code == 400 and response.json()["error"] == "Bad Request"


def test_an_unknown_messaging_route_is_a_json_404(api_client) -> None:
    response = api_client.get("/api/nothing/here")
    assert response.status_code == 404
    assert response.json() == {
        "statusCode": 404,
        "error": "Not Found",
        "message": "No route GET /api/nothing/here.",
    }


def test_a_wrong_method_on_messaging_is_a_json_405(keyed_client, viewer_key) -> None:
    response = keyed_client(viewer_key).put("/api/me", {}, format="json")
    assert response.status_code == 405
    assert response.json()["statusCode"] == 405 and response.json()["error"] == "Method Not Allowed"


def test_gateway_errors_use_the_gateway_shape(keyed_client, viewer_key, api_client) -> None:
    assert api_client.get("/gateway/nothing").json() == {"error": "Not found"}
    assert api_client.get("/gateway/nothing").status_code == 404
    response = keyed_client(viewer_key).delete("/gateway/me")
    assert response.status_code == 405 and response.json() == {"error": "Method not allowed"}


def test_gateway_malformed_json_is_request_body_invalid(keyed_client, admin_key) -> None:
    response = keyed_client(admin_key).post("/gateway/me", "{oops", content_type="application/json")
    # The method is checked before the body is read: a POST on a GET-only route is 405.
    assert response.status_code == 405


def test_unknown_bond_routes_answer_200_in_the_bonds_shape(api_client) -> None:
    response = api_client.get("/bonds/nowhere")
    assert response.status_code == 200
    assert response.json()["response"]["status"] == "not_found"
    assert response.json()["bonds"] == []


def test_unknown_instance_routes_answer_in_the_instance_shape(api_client) -> None:
    response = api_client.get("/instances/nope/whatever")
    assert response.status_code == 404
    assert response.json()["status"] == 404 and response.json()["error"] == "NOT_FOUND"


def test_an_unexpected_error_is_a_logged_500_in_the_interface_shape(rf, caplog) -> None:
    from rest_framework.response import Response

    from accounts.api_bases import KeyedAPIView
    from accounts.permissions import IsViewer

    class BrokenApi(KeyedAPIView):
        permission_classes = []

        def get(self, request) -> Response:
            raise RuntimeError("boom")

    assert IsViewer  # the default would ask for a key; this view opts out to reach the error
    response = BrokenApi.as_view()(rf.get("/api/broken"))
    assert response.status_code == 500
    assert response.data == {
        "statusCode": 500,
        "error": "Internal Server Error",
        "message": "An unexpected error occurred; it has been logged.",
    }
    assert "boom" in caplog.text
