"""Fixtures of the account-area tests: a customer signed up and signed in through Django's test client."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Account
from accounts.services import account_signup

PASSWORD = "a long pass phrase 42"


@pytest.fixture
def customer(default_plans) -> tuple[Client, Account]:
    """A signed-in customer with their own (Free) account: the browser and the account."""
    _, account = account_signup(email="ana@example.com", password=PASSWORD)
    browser = Client()
    browser.login(username="ana@example.com", password=PASSWORD)
    return browser, account
