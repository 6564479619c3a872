"""Configuring the Chatwoot integration: the inbox is searched across the token's accounts, the inbox's
webhook is pointed at Ponte, the token never comes back, and a search miss writes nothing."""

from __future__ import annotations

import pytest

from integrations.chatwoot.models import ChatwootIntegration
from tests.integrations.chatwoot_standin import ACCOUNT_ID, INBOX_ID, TOKEN
from tests.integrations.conftest import chatwoot_body, token_of

pytestmark = pytest.mark.django_db


def test_the_inbox_is_found_in_whichever_account_of_the_token_holds_it(
    admin_client, paired_session, chatwoot
):
    response = admin_client.put(
        f"/api/sessions/{paired_session.pk}/integrations/chatwoot",
        chatwoot_body(chatwoot, signMessages=True, reopenConversations=False),
        format="json",
    )
    assert response.status_code == 200, response.json()
    data = response.json()
    assert data["status"] == "ok"
    assert (data["accountId"], data["inboxId"]) == (ACCOUNT_ID, INBOX_ID)
    assert data["signMessages"] is True and data["reopenConversations"] is False
    assert "accessToken" not in data and TOKEN not in response.content.decode()
    integration = ChatwootIntegration.objects.get(session=paired_session)
    token = token_of(data)
    assert len(token) >= 40 and integration.webhook_token_prefix == token[:8]
    # Ponte pointed the inbox's webhook at its receiving URL.
    assert chatwoot.inbox()["webhook_url"] == data["webhookUrl"]
    # Read back later: the same settings, the URL no longer in full (it is stored as a digest).
    read = admin_client.get(f"/api/sessions/{paired_session.pk}/integrations/chatwoot").json()
    assert read == {**data, "webhookUrl": None}


def test_the_access_token_is_encrypted_at_rest(integration):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT access_token FROM integrations_chatwootintegration WHERE id = %s", [integration.pk]
        )
        stored = cursor.fetchone()[0]
    assert TOKEN not in stored
    assert ChatwootIntegration.objects.get(pk=integration.pk).access_token == TOKEN


def test_an_inbox_found_in_no_account_writes_nothing_and_says_why(admin_client, paired_session, chatwoot):
    response = admin_client.put(
        f"/api/sessions/{paired_session.pk}/integrations/chatwoot",
        chatwoot_body(chatwoot, inboxIdentifier="not-an-inbox"),
        format="json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "CHATWOOT_INBOX_NOT_FOUND"
    assert "not-an-inbox" in body["message"]
    assert not ChatwootIntegration.objects.exists()
    assert admin_client.get(f"/api/sessions/{paired_session.pk}/integrations/chatwoot").status_code == 404


def test_a_search_miss_on_a_configured_session_keeps_the_settings_and_shows_the_reason(
    admin_client, integration, chatwoot
):
    url = f"/api/sessions/{integration.session_id}/integrations/chatwoot"
    reply = admin_client.put(url, {"inboxIdentifier": "gone"}, format="json")
    assert reply.status_code == 200
    data = admin_client.get(url).json()
    assert reply.json() == data
    assert data["inboxIdentifier"] == integration.inbox_identifier
    assert data["status"] == "inbox_not_found"
    assert "gone" in data["statusReason"]


def test_a_token_chatwoot_refuses_is_reported(admin_client, paired_session, chatwoot):
    response = admin_client.put(
        f"/api/sessions/{paired_session.pk}/integrations/chatwoot",
        chatwoot_body(chatwoot, accessToken="wrong"),
        format="json",
    )
    assert response.status_code == 400
    assert "Invalid Access Token" in response.json()["message"]


def test_the_instance_interface_configures_and_reads_the_same_integration(
    api_client, paired_session, chatwoot
):
    url = f"/instances/{paired_session.instance_key}/chatwoot"
    response = api_client.put(url, chatwoot_body(chatwoot), format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == 200
    assert response.json()["data"]["status"] == "ok"
    # The instance key's holder is shown the receiving URL once, as an admin is.
    assert chatwoot.inbox()["webhook_url"] == response.json()["data"]["webhookUrl"]
    read = api_client.get(url).json()["data"]
    assert read["inboxId"] == INBOX_ID and read["webhookUrl"] is None


def test_deleting_the_integration_stops_the_mirror(admin_client, integration):
    url = f"/api/sessions/{integration.session_id}/integrations/chatwoot"
    deleted = admin_client.delete(url)
    assert deleted.status_code == 200 and deleted.json()["success"] is True
    assert admin_client.get(url).status_code == 404


def test_the_receiving_url_answers_only_with_the_integrations_token(api_client, integration):
    assert api_client.post("/integrations/chatwoot/guess", {}, format="json").status_code == 404
    ok = api_client.post(f"/integrations/chatwoot/{integration.webhook_token}", {"event": "x"}, format="json")
    assert ok.status_code == 200


def test_the_admin_lists_integrations_and_mirror_jobs_without_the_token(integration):
    from django.contrib.auth import get_user_model
    from django.test import Client

    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("staff", "staff@example.com", "pw"))
    listing = staff.get("/admin/integrations/chatwootintegration/")
    assert listing.status_code == 200 and integration.inbox_identifier.encode() in listing.content
    change = staff.get(f"/admin/integrations/chatwootintegration/{integration.pk}/change/")
    assert change.status_code == 200 and TOKEN.encode() not in change.content
    assert staff.get("/admin/integrations/mirrorjob/").status_code == 200


def test_the_admin_configures_through_the_inbox_search(paired_session, chatwoot):
    from django.contrib.auth import get_user_model
    from django.test import Client

    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("staff", "staff@example.com", "pw"))
    form = {
        "session": str(paired_session.pk),
        "base_url": chatwoot.url,
        "access_token": TOKEN,
        "inbox_identifier": "missing-inbox",
        "reopen_conversations": "on",
        "import_contacts": "on",
        "enabled": "on",
    }
    refused = staff.post("/admin/integrations/chatwootintegration/add/", form)
    assert refused.status_code == 200 and b"missing-inbox" in refused.content
    assert not ChatwootIntegration.objects.exists()
    form["inbox_identifier"] = chatwoot.inbox()["inbox_identifier"]
    saved = staff.post("/admin/integrations/chatwootintegration/add/", form, follow=True)
    assert saved.status_code == 200, saved.content[:2000]
    integration = ChatwootIntegration.objects.get()
    assert (integration.account_id, integration.inbox_id, integration.status) == (ACCOUNT_ID, INBOX_ID, "ok")
    # The receiving URL is shown once, in the confirmation, and is where the inbox's webhook points.
    url = chatwoot.inbox()["webhook_url"]
    assert url.rsplit("/", 1)[-1][:8] == integration.webhook_token_prefix
    assert url.encode() in saved.content
