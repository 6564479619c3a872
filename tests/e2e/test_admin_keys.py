"""Staff issue a key in the admin: the full key is shown exactly once, and it works."""

from __future__ import annotations

import re

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from accounts.models import ApiKey


def test_staff_issue_a_key_that_is_shown_once_and_works(admin_login, live_server, make_account) -> None:
    account = make_account(name="acme-e2e")
    browser = admin_login()
    browser.get(f"{live_server.url}/admin/accounts/apikey/add/")
    Select(browser.find_element(By.NAME, "account")).select_by_visible_text(str(account))
    browser.find_element(By.NAME, "name").send_keys("from the browser")
    Select(browser.find_element(By.NAME, "role")).select_by_value("operator")
    browser.find_element(By.NAME, "_save").click()
    WebDriverWait(browser, 15).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".messagelist"))

    shown = re.findall(
        r"ponte_[a-z0-9]{8}_[A-Za-z0-9_-]+", browser.find_element(By.CSS_SELECTOR, ".messagelist").text
    )
    assert len(shown) == 1
    plaintext = shown[0]
    # Its Copy button copies exactly the key.
    browser.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"origin": live_server.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    copy = browser.find_element(By.CSS_SELECTOR, ".messagelist button[data-copy]")
    copy.click()
    WebDriverWait(browser, 10).until(lambda b: copy.text in ("Copied", "Copiado"))
    assert browser.execute_async_script("navigator.clipboard.readText().then(arguments[0])") == plaintext
    key = ApiKey.objects.get(name="from the browser")
    assert key.role == "operator" and plaintext.startswith(f"ponte_{key.prefix}_")

    reply = requests.get(f"{live_server.url}/api/me", headers={"X-API-Key": plaintext}, timeout=10)
    assert reply.status_code == 200 and reply.json()["key"]["role"] == "operator"

    browser.get(f"{live_server.url}/admin/accounts/apikey/{key.pk}/change/")
    browser.refresh()
    assert plaintext not in browser.page_source  # never shown again


def test_staff_revoke_a_key_from_the_list(admin_login, live_server, make_account) -> None:
    from accounts.services import api_key_create

    _, plaintext = api_key_create(account=make_account(name="acme-revoke"), role="viewer", name="to revoke")
    browser = admin_login()
    browser.get(f"{live_server.url}/admin/accounts/apikey/?status=active")
    browser.find_element(By.CSS_SELECTOR, "input.action-select").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("revoke_selected")
    browser.find_element(By.NAME, "index").click()
    WebDriverWait(browser, 15).until(lambda b: "Revoked 1 key(s)." in b.page_source)
    reply = requests.get(f"{live_server.url}/api/me", headers={"X-API-Key": plaintext}, timeout=10)
    assert reply.status_code == 401
