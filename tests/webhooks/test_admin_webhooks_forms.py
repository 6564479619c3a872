"""The webhooks admin as staff use it: delivery pages that say what they mean, and field errors (never a
500) for bad input in the webhook and instance-webhook forms or the change list's query string."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.utils import timezone

from webhooks.models import Delivery, DeliveryAttempt, Event, InstanceWebhookConfig, Webhook

LIST = "/admin/webhooks/delivery/"


@pytest.fixture
def webhook(account, session) -> Webhook:
    return Webhook.objects.create(
        account=account, session=session, url="http://127.0.0.1:9/old", events=["message"], retry_count=3
    )


def _delivery(webhook: Webhook, status: str, attempts: int, **fields) -> Delivery:
    event = Event.objects.create(session=webhook.session, name="message", event_ms=0, received_at_ms=0)
    delivery = Delivery.objects.create(
        event=event,
        session=webhook.session,
        webhook=webhook,
        target_url=webhook.url,
        payload={},
        status=status,
        max_attempts=webhook.retry_count,
        attempt_count=attempts,
        last_status_code=503,
        next_attempt_at=timezone.now() + timedelta(minutes=1),
        **fields,
    )
    for number in range(1, attempts + 1):
        DeliveryAttempt.objects.create(
            delivery=delivery, number=number, scheduled_at=timezone.now(), status_code=503, outcome="retry"
        )
    return delivery


def test_attempts_are_titled_with_the_attempts_allowed_not_the_delivery_id(admin_client, webhook):
    delivery = _delivery(webhook, "dead", 3)
    if delivery.pk == 3:  # the old title ("of <delivery id>") would pass by chance
        delivery = _delivery(webhook, "dead", 3)
    page = admin_client.get(f"{LIST}{delivery.pk}/change/").content.decode()
    assert "attempt 1 of 3: 503" in page and "attempt 3 of 3: 503" in page
    assert f"of {delivery.pk}:" not in page


def test_a_resend_attempt_is_titled_as_a_resend(admin_client, webhook):
    delivery = _delivery(webhook, "delivered", 3)
    staff = get_user_model().objects.get(username="admin")
    DeliveryAttempt.objects.create(
        delivery=delivery, number=4, scheduled_at=timezone.now(), status_code=200, requested_by=staff
    )
    assert "attempt 4 (resend): 200" in admin_client.get(f"{LIST}{delivery.pk}/change/").content.decode()


def test_next_attempt_shows_only_while_the_delivery_waits(admin_client, webhook):
    dead, waiting = _delivery(webhook, "dead", 3), _delivery(webhook, "failed", 1)
    assert "Next attempt at" not in admin_client.get(f"{LIST}{dead.pk}/change/").content.decode()
    assert "Next attempt at" in admin_client.get(f"{LIST}{waiting.pk}/change/").content.decode()


def test_the_list_shows_attempts_of_allowed_and_the_last_status(admin_client, webhook):
    _delivery(webhook, "dead", 3)
    page = admin_client.get(LIST).content.decode()
    assert '<td class="field-attempts">3 of 3</td>' in page
    assert '<td class="field-last_status">503</td>' in page
    assert '<td class="field-next_try">-</td>' in page  # a dead letter has no next try


@pytest.mark.parametrize(
    "query",
    ["webhook__id__exact=%00", "event=%00", "created_at__year=abc"],
)
def test_an_unusable_filter_reopens_the_list_flagged_not_a_500(admin_client, webhook, query):
    reply = admin_client.get(f"{LIST}?{query}")
    assert reply.status_code == 302 and reply["Location"].endswith("?e=1")


@pytest.mark.parametrize("query", ["created_at__year=abc", "status__exact=dead&event=%00"])
def test_resend_all_matching_with_an_unusable_filter_goes_back_to_the_list(admin_client, webhook, query):
    _delivery(webhook, "dead", 3)
    reply = admin_client.post(f"{LIST}resend-matching/?{query}")
    assert reply.status_code == 302 and reply["Location"] == f"{LIST}?e=1"
    assert Delivery.objects.get().status == "dead"


def _webhook_post(admin_client, webhook: Webhook, **fields):
    data = {
        "url": webhook.url,
        "events": webhook.events,
        "retry_count": webhook.retry_count,
        "status": webhook.status,
        **fields,
    }
    # Admin URLs carry the key quoted: "wh_3A…" unquoted would read as "wh:…".
    return admin_client.post(f"/admin/webhooks/webhook/{quote(webhook.pk)}/change/", data)


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("events", ["nonsense"], "Select a valid choice"),
        ("events", [], "This field is required"),
        ("retry_count", "99", "less than or equal to 10"),
        ("retry_count", "1e400", "Enter a whole number"),
        ("url", "http://169.254.169.254/latest", "refused"),
        ("url", "ftp://example.com/x", "http:// or https://"),
        ("url", "http://user:pw@127.0.0.1/x", "user name or password"),
        ("headers", '{"X-A": "abc\\n"}', "only printable ASCII"),
        ("headers", '{"X-A\\n": "abc"}', "is not a valid header name"),
    ],
)
def test_a_webhook_edit_with_bad_input_is_a_field_error(admin_client, webhook, field, value, error):
    reply = _webhook_post(admin_client, webhook, **{field: value})
    assert reply.status_code == 200
    assert error in " ".join(reply.context["adminform"].form.errors[field])
    webhook.refresh_from_db()
    assert (webhook.url, webhook.events, webhook.retry_count) == ("http://127.0.0.1:9/old", ["message"], 3)


def test_a_webhook_edit_is_saved_like_the_gateways_and_waiting_deliveries_follow(
    admin_client, webhook, allow_loopback
):
    waiting, dead = _delivery(webhook, "failed", 1), _delivery(webhook, "dead", 3)
    reply = _webhook_post(
        admin_client, webhook, url="http://127.0.0.1:9/new", events=["message", "qr"], retry_count="5"
    )
    assert reply.status_code == 302
    webhook.refresh_from_db()
    assert (webhook.url, webhook.events, webhook.retry_count) == (
        "http://127.0.0.1:9/new",
        ["message", "qr"],
        5,
    )
    assert webhook.updated_at is not None
    waiting.refresh_from_db(), dead.refresh_from_db()
    assert (waiting.target_url, waiting.max_attempts) == ("http://127.0.0.1:9/new", 5)
    assert (dead.target_url, dead.max_attempts) == ("http://127.0.0.1:9/old", 3)


def test_an_unchanged_url_is_not_checked_again(admin_client, account, session):
    """The check resolves the host: an unresolvable, unchanged URL must not block other edits."""
    webhook = Webhook.objects.create(
        account=account, session=session, url="https://unresolvable.invalid/x", events=["message"]
    )
    assert _webhook_post(admin_client, webhook, retry_count="2").status_code == 302
    webhook.refresh_from_db()
    assert webhook.retry_count == 2


def _config_post(admin_client, session, **fields):
    data = {"session": session.pk, "allow_webhook": "on", "allow_number": "all", "webhook_format": "meta"}
    return admin_client.post("/admin/webhooks/instancewebhookconfig/add/", {**data, **fields})


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("allow_number", "5511 9999, call me", "is not one"),
        ("webhook_message", "http://10.0.0.5/hook", "refused"),
        ("webhook_group", "http://localhost/hook", "refused"),
    ],
)
def test_an_instance_webhook_configuration_with_bad_input_is_a_field_error(
    admin_client, session, field, value, error
):
    reply = _config_post(admin_client, session, **{field: value})
    assert reply.status_code == 200
    assert error in " ".join(reply.context["adminform"].form.errors[field])
    assert not InstanceWebhookConfig.objects.exists()


def test_an_instance_webhook_configuration_is_stored_as_the_instance_api_stores_it(
    admin_client, session, allow_loopback
):
    reply = _config_post(
        admin_client,
        session,
        allow_number="+55 11 99999-0001, 5511999990001",
        webhook_message="http://127.0.0.1:9/m",
    )
    assert reply.status_code == 302
    config = InstanceWebhookConfig.objects.get()
    assert (config.allow_number, config.webhook_message) == ("5511999990001", "http://127.0.0.1:9/m")


def test_an_instance_webhook_configuration_stays_with_its_session(admin_client, account, session):
    config = InstanceWebhookConfig.objects.create(session=session)
    other = type(session).objects.create(account=account, name="other")
    data = {"session": other.pk, "allow_number": "all", "webhook_format": "plain"}
    reply = admin_client.post(f"/admin/webhooks/instancewebhookconfig/{config.pk}/change/", data)
    assert reply.status_code == 302
    config.refresh_from_db()
    assert (config.session, config.webhook_format) == (session, "plain")
