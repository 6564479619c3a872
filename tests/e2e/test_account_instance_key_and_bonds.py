"""In a real Chromium: a new session's instance key shown once (a reload shows the session page
without it), regenerating it behind a confirmation, and a Free customer requesting the bonds
subscription from the account area."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import requests
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from accounts.models import Subscription
from accounts.services import account_signup
from messaging.models import Session

pytestmark = pytest.mark.browser
PASSWORD = "a long pass phrase 42"


@pytest.fixture
def signed_up(browser, live_server, transactional_db, default_plans) -> Callable[[str], webdriver.Chrome]:
    """A new Free customer, signed in through the sign-in form."""

    def sign_in(email: str) -> webdriver.Chrome:
        account_signup(email=email, password=PASSWORD)
        browser.get(f"{live_server.url}/account/login/")
        browser.find_element(By.NAME, "username").send_keys(email)
        browser.find_element(By.NAME, "password").send_keys(PASSWORD)
        browser.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
        WebDriverWait(browser, 15).until(lambda b: b.find_elements(By.ID, "bonds"))
        return browser

    return sign_in


def _instance(live_server, key: str) -> int:
    return requests.get(f"{live_server.url}/instances/{key}/instance", timeout=10).status_code


def test_the_instance_key_is_shown_once_and_regenerated_after_confirmation(signed_up, live_server) -> None:
    browser = signed_up("keys@example.com")
    browser.get(f"{live_server.url}/account/sessions/")
    browser.find_element(By.NAME, "name").send_keys("shop")
    browser.find_element(By.CSS_SELECTOR, "#create-session button").click()
    wait = WebDriverWait(browser, 15, ignored_exceptions=[StaleElementReferenceException])
    first = wait.until(lambda b: b.find_element(By.ID, "new-instance-key-value").text)
    # A secret shown once has its Copy button, copying exactly the key.
    browser.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"origin": live_server.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    copy = browser.find_element(By.CSS_SELECTOR, "#new-instance-key button[data-copy]")
    copy.click()
    WebDriverWait(browser, 10).until(lambda b: copy.text in ("Copied", "Copiado"))
    assert browser.execute_async_script("navigator.clipboard.readText().then(arguments[0])") == first
    session = Session.objects.get(name="shop")
    # The page answering the POST became the session page's GET: a reload shows no key.
    assert browser.current_url == f"{live_server.url}/account/sessions/{session.pk}/"
    assert _instance(live_server, first) == 200
    browser.refresh()
    wait.until(lambda b: b.find_element(By.ID, "session-status"))
    assert first not in browser.page_source and not browser.find_elements(By.ID, "new-instance-key")

    browser.find_element(By.NAME, "regenerate-instance-key").click()
    browser.switch_to.alert.dismiss()  # changed their mind: nothing happens
    assert _instance(live_server, first) == 200

    browser.find_element(By.NAME, "regenerate-instance-key").click()
    browser.switch_to.alert.accept()
    second = wait.until(lambda b: b.find_element(By.ID, "new-instance-key-value").text)
    assert second != first
    assert _instance(live_server, first) == 404 and _instance(live_server, second) == 200
    browser.refresh()
    wait.until(lambda b: b.find_element(By.ID, "session-status"))
    assert second not in browser.page_source


def test_a_free_customer_requests_the_bonds_subscription(signed_up, live_server) -> None:
    browser = signed_up("bonds@example.com")
    browser.find_element(By.NAME, "request-bonds").click()
    # The element read may belong to the page the POST is replacing: look again when it goes stale.
    wait = WebDriverWait(browser, 15, ignored_exceptions=[StaleElementReferenceException])
    wait.until(lambda b: "pending approval" in b.find_element(By.ID, "bonds").text)
    assert not browser.find_elements(By.NAME, "request-bonds")
    assert Subscription.objects.get(account__user__email="bonds@example.com").status == "requested"
