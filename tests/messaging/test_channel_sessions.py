"""Official sessions: created with credentials verified against the Graph API, stored encrypted."""

from __future__ import annotations

import pytest
from django.db import connection

from messaging.channels.models import ChannelAccount
from messaging.models import Session
from tests.messaging.graph_standin import (
    APP_SECRET,
    CLOUD_TOKEN,
    PAGE_TOKEN,
    PHONE_NUMBER_ID,
    VERSION,
    cloud_credentials,
    credentials_for,
    page_credentials,
)
from webhooks.models import Event

pytestmark = pytest.mark.django_db

SECRETS = (CLOUD_TOKEN, PAGE_TOKEN, APP_SECRET)


@pytest.mark.parametrize("provider", ["whatsapp_cloud", "messenger", "instagram"])
def test_an_official_session_is_connected_once_its_credentials_are_verified(admin_client, graph, provider):
    body = {"name": "acme", "provider": provider, "credentials": credentials_for(provider)}
    response = admin_client.post("/api/sessions", body, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["provider"] == provider and data["official"] is True
    assert data["status"] == "connected" and data["hasCredentials"] is True
    assert "credentials" not in data
    verify = graph.calls[0]
    assert verify.method == "GET"
    expected = f"/{VERSION}/{PHONE_NUMBER_ID}" if provider == "whatsapp_cloud" else f"/{VERSION}/me"
    assert verify.path == expected
    assert Event.objects.filter(session_id=data["id"], name="connected").exists()


def test_the_cloud_session_takes_the_verified_number_and_name(official_session):
    session = official_session("whatsapp_cloud")
    assert session.phone == "551140000001"
    assert session.jid == "551140000001@s.whatsapp.net"
    assert session.profile_name == "Acme Support"


def test_refused_credentials_answer_400_with_the_reason_and_create_nothing(admin_client, graph):
    body = {
        "name": "acme",
        "provider": "whatsapp_cloud",
        "credentials": cloud_credentials(accessToken="wrong"),
    }
    response = admin_client.post("/api/sessions", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"
    assert "Error validating access token" in response.json()["message"]
    assert not Session.objects.exists() and not ChannelAccount.objects.exists()


def test_a_page_token_of_another_page_is_refused(admin_client, graph):
    body = {"name": "p", "provider": "messenger", "credentials": page_credentials(pageId="999")}
    response = admin_client.post("/api/sessions", body, format="json")
    assert response.status_code == 400 and "belongs to page" in response.json()["message"]


def test_missing_credentials_are_named_without_calling_the_graph_api(admin_client, graph):
    body = {"name": "acme", "provider": "messenger", "credentials": {"pageId": "1"}}
    response = admin_client.post("/api/sessions", body, format="json")
    assert response.status_code == 400
    assert "pageAccessToken" in response.json()["message"] and "appSecret" in response.json()["message"]
    assert graph.calls == []


def test_an_unknown_provider_is_refused(admin_client, graph):
    response = admin_client.post("/api/sessions", {"name": "x", "provider": "telegram"}, format="json")
    assert response.status_code == 400 and "provider" in response.json()["message"]


def test_credentials_are_refused_for_the_qr_code_channel(admin_client):
    response = admin_client.post("/api/sessions", {"name": "x", "credentials": {"a": "b"}}, format="json")
    assert response.status_code == 400


def test_credentials_are_never_in_a_reply_nor_in_clear_in_the_database(admin_client, official_session):
    session = official_session("whatsapp_cloud")
    for reply in (admin_client.get(f"/api/sessions/{session.pk}"), admin_client.get("/api/sessions")):
        text = reply.content.decode()
        assert reply.status_code == 200
        assert not any(secret in text for secret in SECRETS)
    with connection.cursor() as cursor:
        cursor.execute("SELECT credentials FROM messaging_channelaccount")
        (stored,) = cursor.fetchone()
    assert not any(secret in stored for secret in SECRETS)
    assert ChannelAccount.objects.get(session=session).credential("accessToken") == CLOUD_TOKEN


@pytest.mark.parametrize(
    "method,path",
    [("post", "connect"), ("get", "qrcode"), ("post", "pairing-code")],
)
def test_qr_pairing_and_connect_answer_operation_not_supported(admin_client, official_session, method, path):
    session = official_session("messenger")
    body = {"phoneNumber": "5511999990001"} if path == "pairing-code" else None
    response = getattr(admin_client, method)(f"/api/sessions/{session.pk}/{path}", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "OPERATION_NOT_SUPPORTED"
    assert "messenger" in response.json()["message"]


def test_the_qr_code_session_stays_the_default(admin_client):
    response = admin_client.post("/api/sessions", {"name": "qr"}, format="json")
    assert response.status_code == 201
    assert response.json()["provider"] == "whatsapp" and response.json()["official"] is False
    assert response.json()["hasCredentials"] is False


def test_the_admin_shows_the_channel_and_its_disconnect_reason_but_never_the_credentials(
    client, official_session
):
    from django.contrib.auth import get_user_model

    session = official_session("whatsapp_cloud")
    ChannelAccount.objects.filter(session=session).update(disconnect_reason="access token refused: expired")
    client.force_login(get_user_model().objects.create_superuser("staff", "staff@example.com", "pw"))
    page = client.get(f"/admin/messaging/session/{session.pk}/change/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "access token refused: expired" in text and "Acme Support" in text
    assert not any(secret in text for secret in SECRETS)


def test_logout_deletes_the_credentials_and_disconnects(admin_client, official_session):
    session = official_session("instagram")
    response = admin_client.post(f"/api/sessions/{session.pk}/logout")
    assert response.status_code == 200
    session.refresh_from_db()
    assert session.status == "disconnected" and session.channel.credentials is None
    assert admin_client.get(f"/api/sessions/{session.pk}").json()["hasCredentials"] is False
    assert Event.objects.filter(session_id=session.pk, name="disconnected").exists()


def test_deleting_an_official_session_deletes_its_channel(admin_client, official_session):
    session = official_session("messenger")
    assert admin_client.delete(f"/api/sessions/{session.pk}").status_code == 200
    assert not ChannelAccount.objects.exists()
