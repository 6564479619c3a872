"""The webhooks admin for sender depth: status and disable reason shown, secrets rotated (shown once),
custom headers edited with the gateway's checks."""

from __future__ import annotations

import pytest
from django.contrib.admin.utils import quote
from django.utils import timezone

from webhooks.models import Webhook

pytestmark = pytest.mark.django_db

CHANGE = "/admin/webhooks/webhook/{}/change/"


@pytest.fixture
def webhook(account, session) -> Webhook:
    return Webhook.objects.create(
        account=account, session=session, url="http://127.0.0.1:9/h", events=["message"], secret="old"
    )


def _post(admin_client, webhook: Webhook, **fields):
    data = {
        "url": webhook.url,
        "events": webhook.events,
        "retry_count": webhook.retry_count,
        "status": webhook.status,
        **fields,
    }
    return admin_client.post(CHANGE.format(quote(webhook.pk)), data)


def test_the_list_and_the_page_show_the_status_and_why_it_was_disabled(admin_client, webhook):
    Webhook.objects.filter(pk=webhook.pk).update(
        status="disabled", disabled_reason="Every delivery attempt failed since …", disabled_at=timezone.now()
    )
    assert "disabled" in admin_client.get("/admin/webhooks/webhook/?status=disabled").content.decode()
    page = admin_client.get(CHANGE.format(quote(webhook.pk))).content.decode()
    assert "Every delivery attempt failed since" in page


def test_rotate_the_secret_shows_the_new_one_once_and_keeps_the_old_one_signing(admin_client, webhook):
    reply = admin_client.post(
        "/admin/webhooks/webhook/", {"action": "rotate_secret", "_selected_action": [webhook.pk]}
    )
    webhook.refresh_from_db()
    assert webhook.secret.startswith("whsec_") and webhook.secret in reply.content.decode()
    assert webhook.previous_secret == "old" and webhook.previous_secret_expires_at > timezone.now()
    assert "no-cache" in reply["Cache-Control"] or "no-store" in reply["Cache-Control"]


def test_headers_are_edited_with_the_gateway_s_checks(admin_client, webhook, allow_loopback):
    reply = _post(admin_client, webhook, headers='{"Host": "evil"}')
    assert reply.status_code == 200 and "reserved header names refused: Host" in reply.content.decode()
    assert _post(admin_client, webhook, headers='{"X-Tenant": "acme"}').status_code == 302
    webhook.refresh_from_db()
    assert webhook.headers == {"X-Tenant": "acme"}


def test_staff_enable_a_disabled_webhook_from_its_page(admin_client, webhook, allow_loopback):
    Webhook.objects.filter(pk=webhook.pk).update(status="disabled", disabled_reason="failing")
    webhook.refresh_from_db()
    assert _post(admin_client, webhook, status="active").status_code == 302
    webhook.refresh_from_db()
    assert (webhook.status, webhook.disabled_reason) == ("active", "")
