"""The account the layout tests look at (tests/e2e/conftest.py's `customer`): long names, a long URL, a
dead letter with a long error, so every table is as wide as real data makes it."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from selenium import webdriver
from selenium.webdriver.common.by import By

from accounts.models import Account
from messaging.models import Session
from tests.e2e.pages import wait
from webhooks.models import Delivery, DeliveryAttempt, Event, Webhook

PASSWORD = "a long pass phrase 42"
LONG_URL = (
    "https://hooks.customer-example-with-a-long-domain-name.example.com/api/v2/integrations/"
    "whatsapp/ponte/webhook-receiver?token=abcdef1234567890abcdef1234567890"
)
LONG_ERROR = (
    "connection refused by hooks.customer-example-with-a-long-domain-name.example.com:443 "
    "after 10 s (the receiver did not answer)"
)


def signed_up_customer(browser: webdriver.Chrome, live_server) -> webdriver.Chrome:
    """A customer signed up through the form, with a session waiting for its QR scan, a webhook to a
    long URL and two deliveries to it: a dead letter with a long error, and a delivered one."""
    browser.get(f"{live_server.url}/account/signup/")
    browser.find_element(By.NAME, "email").send_keys("layout@example.com")
    browser.find_element(By.NAME, "password").send_keys(PASSWORD)
    browser.find_element(By.NAME, "confirmation").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    wait(browser).until(lambda b: "Plan: Free" in b.page_source)

    browser.get(f"{live_server.url}/account/sessions/")
    browser.find_element(By.NAME, "name").send_keys("customer-support-main-line")
    browser.find_element(By.CSS_SELECTOR, "#create-session button").click()
    browser.find_element(By.NAME, "connect").click()
    wait(browser, 20).until(lambda b: b.find_element(By.ID, "qr").get_attribute("data-code"))

    session = Session.objects.get(name="customer-support-main-line")
    account = Account.objects.get(user__email="layout@example.com")
    webhook = Webhook.objects.create(
        account=account, session=session, url=LONG_URL, events=["message", "session.status"], retry_count=3
    )
    for status in (Delivery.Status.DEAD, Delivery.Status.DELIVERED):
        event = Event.objects.create(session=session, name="message", event_ms=0, received_at_ms=0)
        dead = status == Delivery.Status.DEAD
        delivery = Delivery.objects.create(
            event=event,
            session=session,
            webhook=webhook,
            target_url=LONG_URL,
            payload={"n": 1},
            status=status,
            max_attempts=3,
            attempt_count=3 if dead else 1,
            last_status_code=None if dead else 200,
            last_error=LONG_ERROR if dead else "",
            next_attempt_at=timezone.now() + timedelta(minutes=1),
            dead_at=timezone.now() if dead else None,
        )
        for number in range(1, delivery.attempt_count + 1):
            DeliveryAttempt.objects.create(
                delivery=delivery,
                number=number,
                scheduled_at=timezone.now(),
                status_code=None if dead else 200,
                error=LONG_ERROR if dead else "",
                outcome="retry" if dead else "delivered",
            )
    return browser
