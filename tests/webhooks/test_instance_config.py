"""`PUT|GET /instances/<instance_key>/instance`: the instance-webhook configuration and its errors."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.webhooks.instance_support import instance_session
from webhooks.models import InstanceWebhookConfig

pytestmark = pytest.mark.django_db

HOOK = "http://127.0.0.1:8081/hook"


@pytest.fixture
def session(account):
    return instance_session(account)


@pytest.fixture
def client() -> APIClient:
    return APIClient()  # no API key: the instance key in the path is the credential


def _url(session) -> str:
    return f"/instances/{session.instance_key}/instance"


def test_a_session_never_configured_reads_the_defaults(client, session):
    response = client.get(_url(session))
    assert response.status_code == 200
    assert response.json() == {
        "status": 200,
        "data": {
            "allowWebhook": False,
            "allowNumber": "all",
            "webhookFormat": "meta",
            "webhookMessage": "",
            "webhookGroup": "",
            "webhookConnection": "",
            "webhookQrCode": "",
            "webhookMessageFromMe": "",
            "webhookHistory": "",
        },
    }
    assert not InstanceWebhookConfig.objects.exists()  # reading writes nothing


def test_put_saves_every_setting_and_get_returns_it(client, session, allow_loopback):
    body = {
        "allowWebhook": True,
        "allowNumber": "all",
        "webhookFormat": "meta",
        "webhookMessage": HOOK,
        "webhookGroup": "http://127.0.0.1:8081/groups",
        "webhookConnection": "",
        "webhookQrCode": "http://127.0.0.1:8081/qr",
        "webhookMessageFromMe": "http://127.0.0.1:8081/mine",
        "webhookHistory": "",
    }
    response = client.put(_url(session), body, format="json")
    assert response.status_code == 200
    assert response.json() == {"status": 200, "data": body}
    assert client.get(_url(session)).json()["data"] == body
    config = InstanceWebhookConfig.objects.get(session=session)
    assert config.allow_webhook is True
    assert config.webhook_qrcode == "http://127.0.0.1:8081/qr"


def test_settings_left_out_of_a_put_keep_their_value(client, session, allow_loopback):
    client.put(_url(session), {"allowWebhook": True, "webhookMessage": HOOK}, format="json")
    response = client.put(_url(session), {"webhookFormat": "plain"}, format="json")
    data = response.json()["data"]
    assert data["allowWebhook"] is True
    assert data["webhookMessage"] == HOOK
    assert data["webhookFormat"] == "plain"


def test_an_empty_url_clears_the_setting(client, session, allow_loopback):
    client.put(_url(session), {"webhookGroup": HOOK}, format="json")
    data = client.put(_url(session), {"webhookGroup": ""}, format="json").json()["data"]
    assert data["webhookGroup"] == ""


def test_allow_number_accepts_a_list_of_numbers_and_normalises_it(client, session):
    response = client.put(_url(session), {"allowNumber": "+55 11 98888-7777, 5511977776666"}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["allowNumber"] == "5511988887777,5511977776666"


def test_an_unknown_instance_key_answers_404_in_the_instance_shape(client):
    for method in ("get", "put"):
        response = getattr(client, method)("/instances/no-such-key/instance", {}, format="json")
        assert response.status_code == 404
        assert response.json() == {
            "status": 404,
            "error": "INSTANCE_NOT_FOUND",
            "message": "Instance not found: no session has this instance key.",
        }


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"allowWebhook": "true"}, "allowWebhook"),
        ({"allowWebhook": 1}, "allowWebhook"),
        ({"webhookFormat": "xml"}, "webhookFormat"),
        ({"allowNumber": "everyone"}, "allowNumber"),
        ({"webhookMessage": "ftp://example.com/hook"}, "webhookMessage"),
        ({"webhookMessage": "not a url"}, "webhookMessage"),
        ({"webhookGroup": "http://127.0.0.1/hook"}, "webhookGroup"),
        ({"webhookConnection": "http://10.0.0.5/hook"}, "webhookConnection"),
        ({"webhookQrCode": "http://169.254.169.254/latest/meta-data"}, "webhookQrCode"),
        ({"webhookHistory": "http://[::ffff:127.0.0.1]/x"}, "webhookHistory"),
        ({"webhookMessageFromMe": "http://100.64.0.1/x"}, "webhookMessageFromMe"),
        ({"webhookMessage": "http://user:pw@example.com/x"}, "webhookMessage"),
        ({"webhookUrl": "http://example.com"}, "unknown field"),
    ],
)
def test_bad_settings_are_refused_and_nothing_is_written(client, session, body, fragment):
    response = client.put(_url(session), {"allowWebhook": True, **body}, format="json")
    assert response.status_code == 400
    reply = response.json()
    assert reply["status"] == 400
    assert reply["error"] == "VALIDATION_ERROR"
    assert fragment in reply["message"]
    assert not InstanceWebhookConfig.objects.exists()


def test_a_body_that_is_not_an_object_is_refused(client, session):
    response = client.put(_url(session), ["allowWebhook"], format="json")
    assert response.status_code == 400
    assert response.json()["status"] == 400


def test_one_bad_url_leaves_the_saved_configuration_untouched(client, session, allow_loopback):
    client.put(_url(session), {"allowWebhook": True, "webhookMessage": HOOK}, format="json")
    response = client.put(_url(session), {"allowWebhook": False, "webhookGroup": "gopher://x"}, format="json")
    assert response.status_code == 400
    assert client.get(_url(session)).json()["data"]["allowWebhook"] is True


def test_other_methods_answer_405_in_the_instance_shape(client, session):
    response = client.delete(_url(session))
    assert response.status_code == 405
    assert response.json()["status"] == 405
    assert response.json()["error"] == "METHOD_NOT_ALLOWED"


def test_unknown_instance_routes_answer_404_in_the_instance_shape(client, session):
    response = client.get(f"/instances/{session.instance_key}/instance/webhook/error")
    assert response.status_code == 404
    assert response.json()["status"] == 404


def test_malformed_json_and_a_wrong_content_type_are_refused_in_the_instance_shape(client, session):
    response = client.generic("PUT", _url(session), b"{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"
    response = client.generic("PUT", _url(session), b"allowWebhook=true", content_type="text/plain")
    assert response.status_code == 400
    assert response.json()["error"] == "BAD_REQUEST"
    assert response.json()["status"] == 400
