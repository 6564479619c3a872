"""A customer without the bonds subscription asks for it in the account area; staff approve it in the
admin, and only then do the account's keys list every bond."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Account, ApiKey, Subscription
from accounts.services import account_signup, api_key_create, subscription_set
from bonds.access import subscription_memos_clear


@pytest.fixture
def free_customer(default_plans) -> tuple[Client, Account]:
    _, account = account_signup(email="free@example.com", password="a long pass phrase 42")
    browser = Client()
    browser.login(username="free@example.com", password="a long pass phrase 42")
    return browser, account


def bonds_status(client: Client, key: str) -> str:
    subscription_memos_clear()
    reply = client.get("/bonds/api/", HTTP_AUTHORIZATION=f"Bearer {key}")
    return reply.json()["response"]["status"]


def test_a_free_customer_requests_the_bonds_subscription_and_staff_approve_it(
    free_customer, admin_client
) -> None:
    browser, account = free_customer
    _, key = api_key_create(account=account, role=ApiKey.Role.VIEWER, name="bonds")
    home = browser.get("/account/").content.decode()
    assert "Request the bonds subscription" in home and 'action="/account/bonds/request/"' in home

    reply = browser.post("/account/bonds/request/")
    assert reply.status_code == 302 and reply["Location"] == "/account/"
    subscription = Subscription.objects.get(account=account, product="bonds")
    assert subscription.status == Subscription.Status.REQUESTED
    page = browser.get("/account/").content.decode()
    assert "pending approval" in page and "Request the bonds subscription" not in page
    assert bonds_status(Client(), key) == "no_subscription"

    approved = admin_client.post(
        "/admin/accounts/subscription/",
        {"action": "approve_requests", "_selected_action": [subscription.pk]},
        follow=True,
    )
    assert "1 subscription(s) approved." in approved.content.decode()
    subscription.refresh_from_db()
    assert subscription.status == Subscription.Status.ACTIVE
    assert "Active: keys of this account list every bond." in browser.get("/account/").content.decode()
    assert bonds_status(Client(), key) == "ok"


def test_a_canceled_subscription_can_be_requested_again(free_customer) -> None:
    browser, account = free_customer
    subscription_set(account=account, product="bonds", status=Subscription.Status.CANCELED)
    browser.post("/account/bonds/request/")
    assert Subscription.objects.get(account=account).status == Subscription.Status.REQUESTED


@pytest.mark.parametrize("status", [Subscription.Status.ACTIVE, Subscription.Status.PAST_DUE])
def test_an_active_or_past_due_subscription_is_not_turned_into_a_request(free_customer, status) -> None:
    browser, account = free_customer
    subscription_set(account=account, product="bonds", status=status)
    assert "Request the bonds subscription" not in browser.get("/account/").content.decode()
    reply = browser.post("/account/bonds/request/", follow=True)
    assert "needs no request" in reply.content.decode()
    assert Subscription.objects.get(account=account).status == status


def test_approving_leaves_a_subscription_nobody_requested_as_it_is(free_customer, admin_client) -> None:
    _, account = free_customer
    canceled = subscription_set(account=account, product="bonds", status=Subscription.Status.CANCELED)
    reply = admin_client.post(
        "/admin/accounts/subscription/",
        {"action": "approve_requests", "_selected_action": [canceled.pk]},
        follow=True,
    )
    assert "Not requested, left as they are" in reply.content.decode()
    canceled.refresh_from_db()
    assert canceled.status == Subscription.Status.CANCELED


def test_the_request_is_a_post_only(free_customer) -> None:
    browser, account = free_customer
    assert browser.get("/account/bonds/request/").status_code == 405
    assert not Subscription.objects.filter(account=account).exists()
