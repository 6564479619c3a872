"""Customers in a real Chromium: sign up, keys shown once, revoke, a session's QR code followed live,
a webhook created and a dead letter resent (delivered by a real worker to a real local receiver),
and the landing page."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
import requests
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from accounts.models import Account, ApiKey
from messaging.models import Session
from tests.e2e.pages import wait
from tests.webhooks.support import LOOPBACK, Receiver, wait_for
from webhooks.models import Delivery
from webhooks.services import emit

pytestmark = pytest.mark.browser
PASSWORD = "a long pass phrase 42"


@pytest.fixture
def signed_up(browser, live_server, transactional_db, default_plans) -> Callable[[str], webdriver.Chrome]:
    """Sign a new customer up through the form; the browser is signed in afterwards."""

    def sign_up(email: str) -> webdriver.Chrome:
        browser.get(f"{live_server.url}/account/signup/")
        browser.find_element(By.NAME, "email").send_keys(email)
        browser.find_element(By.NAME, "password").send_keys(PASSWORD)
        browser.find_element(By.NAME, "confirmation").send_keys(PASSWORD)
        browser.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
        wait(browser, 15).until(lambda b: "Plan: Free" in b.page_source)
        return browser

    return sign_up


def test_landing_page_links_docs_account_admin_and_mcp(browser, live_server) -> None:
    browser.get(f"{live_server.url}/")
    assert "Ponte" in browser.title
    hrefs = {a.get_attribute("href") for a in browser.find_elements(By.TAG_NAME, "a")}
    for path in ["/docs/", "/account/", "/admin/", "/bonds/mcp"]:
        assert f"{live_server.url}{path}" in hrefs
    browser.find_element(By.LINK_TEXT, "sign up").click()
    wait(browser, 15).until(lambda b: b.current_url.endswith("/account/signup/"))


def test_sign_up_lands_on_the_account_page_with_the_free_plan(signed_up) -> None:
    browser = signed_up("ana@example.com")
    assert "480" in browser.find_element(By.ID, "plan").text
    assert "No bonds subscription" in browser.find_element(By.ID, "bonds").text
    assert Account.objects.get(user__email="ana@example.com").plan.name == "Free"


def test_issue_a_key_see_it_once_and_revoke_it(signed_up, live_server) -> None:
    browser = signed_up("keys@example.com")
    browser.get(f"{live_server.url}/account/keys/")
    browser.find_element(By.NAME, "name").send_keys("crm")
    Select(browser.find_element(By.NAME, "role")).select_by_value("operator")
    browser.find_element(By.NAME, "allowed_ips").send_keys("127.0.0.1\n::1")
    browser.find_element(By.NAME, "issue").click()
    plaintext = wait(browser, 15).until(lambda b: b.find_element(By.ID, "new-key-value")).text
    assert re.fullmatch(r"ponte_[a-z0-9]{8}_[A-Za-z0-9_-]+", plaintext)
    reply = requests.get(f"{live_server.url}/api/me", headers={"X-API-Key": plaintext}, timeout=10)
    assert reply.status_code == 200 and reply.json()["key"]["role"] == "operator"

    browser.refresh()  # the page answered a POST: the reload must neither show the key nor issue another
    assert plaintext not in browser.page_source and not browser.find_elements(By.ID, "new-key")
    assert ApiKey.objects.filter(name="crm").count() == 1

    prefix = plaintext.split("_")[1]
    browser.find_element(By.CSS_SELECTOR, f"tr[data-prefix='{prefix}'] button[name=revoke]").click()
    wait(browser, 15).until(lambda b: "revoked" in b.find_element(By.ID, "keys").text)
    reply = requests.get(f"{live_server.url}/api/me", headers={"X-API-Key": plaintext}, timeout=10)
    assert reply.status_code == 401


def test_create_a_session_and_watch_its_qr_code_change(signed_up, live_server, settings) -> None:
    settings.MESSAGING_QR_TTL_SECONDS = 2
    browser = signed_up("qr@example.com")
    browser.get(f"{live_server.url}/account/sessions/")
    browser.find_element(By.NAME, "name").send_keys("shop")
    browser.find_element(By.CSS_SELECTOR, "#create-session button").click()
    browser.find_element(By.NAME, "connect").click()
    qr_wait = wait(browser, 20)
    first = qr_wait.until(lambda b: b.find_element(By.ID, "qr").get_attribute("data-code"))
    assert first.startswith("2@")
    assert browser.find_element(By.ID, "qr").get_attribute("src").startswith("data:image/png;base64,")
    # The code expires every 2 s; the page fetches the new one and swaps the image.
    second = qr_wait.until(
        lambda b: (code := b.find_element(By.ID, "qr").get_attribute("data-code")) != first and code
    )
    assert second.startswith("2@")

    browser.find_element(By.NAME, "scan").click()  # the sandbox phone scans the current code
    wait(browser, 15).until(lambda b: "Connected" in b.find_element(By.ID, "session-status").text)
    assert Session.objects.get(name="shop").status == "connected"


@pytest.mark.worker
def test_create_a_webhook_and_resend_a_dead_letter(signed_up, live_server, settings, worker) -> None:
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = [LOOPBACK]
    receiver = Receiver(default=500).start()
    try:
        browser = signed_up("hooks@example.com")
        account = Account.objects.get(user__email="hooks@example.com")
        session = Session.objects.create(account=account, name="main")
        browser.get(f"{live_server.url}/account/webhooks/")
        browser.find_element(By.NAME, "url").send_keys(receiver.url)
        browser.find_element(By.CSS_SELECTOR, "input[name=events][value=message]").click()
        retry = browser.find_element(By.NAME, "retry_count")
        retry.clear()
        retry.send_keys("1")
        browser.find_element(By.NAME, "secret").send_keys("k")
        browser.find_element(By.CSS_SELECTOR, "#create-webhook button").click()
        wait(browser, 15).until(lambda b: receiver.url in b.find_element(By.ID, "webhooks").text)

        event = emit(session_id=session.id, name="message", data={"id": "one", "text": "one"})
        dead = wait_for(
            lambda: Delivery.objects.filter(event=event, status=Delivery.Status.DEAD).first(),
            what="dead letter",
        )
        receiver.default = 200  # the customer fixed their endpoint
        browser.get(f"{live_server.url}/account/deliveries/?status=dead")
        row = browser.find_element(By.CSS_SELECTOR, f"tr[data-id='{dead.pk}']")
        assert "HTTP 500" in row.text
        row.find_element(By.NAME, "delivery").click()
        browser.find_element(By.NAME, "resend").click()
        wait(browser, 15).until(lambda b: "Resending 1 dead letter" in b.page_source)
        browser.execute_script("window.sameLoad = true")  # gone if the page were loaded again
        wait_for(lambda: Delivery.objects.get(pk=dead.pk).status == "delivered", what="the resend")
        ids = [r.headers["x-webhook-id"] for r in receiver.received]
        assert ids == [dead.dispatch_id, dead.dispatch_id]

        # The resent row shows its outcome without a reload (the page reads its waiting rows again).
        row_shows = f"return document.querySelector(\"tr[data-id='{dead.pk}']\").textContent"
        wait(browser, 30).until(lambda b: "HTTP 200" in b.execute_script(row_shows))
        assert browser.execute_script("return window.sameLoad === true")
    finally:
        receiver.stop()
