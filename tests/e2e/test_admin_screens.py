"""The admin screens as staff see them in a real Chromium: the API key form (IPs one per line, a
pick-list of sessions), the delivery list at 1920x1080 without horizontal scroll, a dead letter's page."""

from __future__ import annotations

from datetime import timedelta

import pytest
import requests
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from accounts.models import ApiKey
from messaging.models import Session
from webhooks.models import Delivery, DeliveryAttempt, Event, Webhook

pytestmark = pytest.mark.browser

LONG_URL = (
    "https://hooks.customer-example-with-a-long-domain-name.example.com/api/v2/integrations/"
    "whatsapp/ponte/webhook-receiver?token=abcdef1234567890abcdef1234567890"
)


def _full_hd(browser) -> None:
    """A 1920x1080 viewport exactly (a window of that size has less room inside)."""
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False},
    )


def _dead_letter(webhook: Webhook, number: int) -> Delivery:
    event = Event.objects.create(session=webhook.session, name="message", event_ms=0, received_at_ms=0)
    delivery = Delivery.objects.create(
        event=event,
        session=webhook.session,
        webhook=webhook,
        target_url=webhook.url,
        payload={"n": number},
        status=Delivery.Status.DEAD,
        max_attempts=3,
        attempt_count=3,
        last_status_code=503,
        next_attempt_at=timezone.now() + timedelta(minutes=1),
        dead_at=timezone.now(),
    )
    for attempt in range(1, 4):
        DeliveryAttempt.objects.create(
            delivery=delivery, number=attempt, scheduled_at=timezone.now(), status_code=503, outcome="retry"
        )
    return delivery


@pytest.fixture
def webhook(make_account) -> Webhook:
    account = make_account(name="acme-screens")
    session = Session.objects.create(account=account, name="customer-support-main-line", status="connected")
    return Webhook.objects.create(
        account=account, session=session, url=LONG_URL, events=["message"], retry_count=3
    )


def test_the_delivery_list_shows_attempts_and_last_status_without_horizontal_scroll(
    admin_login, live_server, webhook, tmp_path
):
    for number in range(3):
        _dead_letter(webhook, number)
    browser = admin_login()
    _full_hd(browser)
    browser.get(f"{live_server.url}/admin/webhooks/delivery/")
    WebDriverWait(browser, 15).until(lambda b: b.find_elements(By.ID, "result_list"))
    browser.save_screenshot(str(tmp_path / "deliveries-1920.png"))

    width = browser.execute_script("return window.innerWidth")
    assert width == 1920
    for column in ("attempts", "last_status"):
        cells = browser.find_elements(
            By.CSS_SELECTOR, f"#result_list .column-{column}, #result_list .field-{column}"
        )
        assert len(cells) == 4  # the heading and three rows
        for cell in cells:
            assert browser.execute_script("return arguments[0].getBoundingClientRect().right", cell) <= width
    assert browser.find_element(By.CSS_SELECTOR, "#result_list .field-attempts").text == "3 of 3"
    assert browser.find_element(By.CSS_SELECTOR, "#result_list .field-last_status").text == "503"
    scroll, client = browser.execute_script(
        "const box = document.querySelector('.results'); return [box.scrollWidth, box.clientWidth]"
    )
    assert scroll <= client  # nothing hidden behind a horizontal scroll


def test_a_dead_letters_page_titles_attempts_of_the_attempts_allowed_and_plans_nothing(
    admin_login, live_server, webhook
):
    delivery = _dead_letter(webhook, 0)
    browser = admin_login()
    browser.get(f"{live_server.url}/admin/webhooks/delivery/{delivery.pk}/change/")
    attempts = browser.find_element(By.ID, "attempts-group").text
    assert "attempt 1 of 3: 503" in attempts and "attempt 3 of 3: 503" in attempts
    assert "Next attempt at" not in browser.find_element(By.ID, "content").text
    assert not browser.find_elements(By.NAME, "_save")  # every field is read-only


def test_staff_issue_a_key_with_ips_one_per_line_and_a_picked_session(admin_login, live_server, make_account):
    account = make_account(name="acme-key-form")
    session = Session.objects.create(account=account, name="picked")
    browser = admin_login()
    browser.get(f"{live_server.url}/admin/accounts/apikey/add/")
    assert (
        "Choose the account above first"
        in browser.find_element(By.CSS_SELECTOR, ".field-allowed_sessions").text
    )
    Select(browser.find_element(By.NAME, "account")).select_by_visible_text(str(account))
    browser.find_element(By.NAME, "name").send_keys("restricted")
    Select(browser.find_element(By.NAME, "role")).select_by_value("viewer")
    ips = browser.find_element(By.NAME, "allowed_ips")
    ips.send_keys("127.0.0.1\n10.0.0.300")
    browser.find_element(By.NAME, "_save").click()

    error = WebDriverWait(browser, 15).until(
        lambda b: b.find_element(By.CSS_SELECTOR, ".field-allowed_ips .errorlist")
    )
    assert error.text == "Line 2: '10.0.0.300' is not an IP address or CIDR."
    assert not ApiKey.objects.exists()

    ips = browser.find_element(By.NAME, "allowed_ips")
    ips.clear()
    ips.send_keys("127.0.0.0/8\n::1")
    browser.find_element(By.CSS_SELECTOR, f"input[name=allowed_sessions][value='{session.pk}']").click()
    browser.find_element(By.NAME, "_save").click()
    WebDriverWait(browser, 15).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".messagelist"))
    key = ApiKey.objects.get(name="restricted")
    assert key.allowed_ips == ["127.0.0.0/8", "::1/128"] and key.allowed_sessions == [str(session.pk)]

    plaintext = (
        browser.find_element(By.CSS_SELECTOR, ".messagelist").text.split("copy it now): ")[1].split()[0]
    )
    reply = requests.get(f"{live_server.url}/api/me", headers={"X-API-Key": plaintext}, timeout=10)
    assert reply.status_code == 200  # 127.0.0.1 is in the list

    # The change page offers only the account's sessions, the picked one ticked.
    Session.objects.create(account=make_account(name="someone-else"), name="not-offered")
    browser.get(f"{live_server.url}/admin/accounts/apikey/{key.pk}/change/")
    boxes = browser.find_elements(By.CSS_SELECTOR, "input[name=allowed_sessions]")
    assert [(box.get_attribute("value"), box.is_selected()) for box in boxes] == [(str(session.pk), True)]
    assert browser.find_element(By.NAME, "allowed_ips").get_attribute("value") == "127.0.0.0/8\n::1/128"
