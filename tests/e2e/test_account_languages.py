"""The account area in a real Chromium, in both languages: signed in, a customer reads it in English,
switches to Portuguese in the header (a POST to Django's /i18n/setlang/ that returns to the same page),
reads the next pages in Portuguese with Brazilian dates and numbers, and switches back."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from selenium.webdriver.common.by import By

from accounts.services import account_signup, api_key_create
from tests.e2e.pages import switch_language, wait

pytestmark = pytest.mark.browser
PASSWORD = "a long pass phrase 42"


def test_a_signed_in_customer_reads_the_account_area_in_portuguese_and_in_english(
    browser, live_server, transactional_db, default_plans
) -> None:
    _, account = account_signup(email="ana@example.com", password=PASSWORD)
    account.plan.messages_per_day = 12500
    account.plan.save()
    expires = datetime(2027, 3, 10, 12, 0, tzinfo=ZoneInfo(settings.TIME_ZONE))
    api_key_create(account=account, role="viewer", name="crm", expires_at=expires)

    browser.get(f"{live_server.url}/account/login/")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Sign in"  # English by default
    browser.find_element(By.NAME, "username").send_keys("ana@example.com")
    browser.find_element(By.NAME, "password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    wait(browser).until(lambda b: "Usage today" in b.page_source)
    assert "12,500" in browser.find_element(By.ID, "plan").text

    switch_language(browser, "pt-br", "pt-BR")
    assert browser.current_url == f"{live_server.url}/account/"  # set_language returned to the page
    assert "Uso hoje" in browser.page_source and "Usage today" not in browser.page_source
    assert "12.500" in browser.find_element(By.ID, "plan").text
    assert browser.find_element(By.LINK_TEXT, "Chaves de API").is_displayed()

    browser.find_element(By.LINK_TEXT, "Chaves de API").click()
    wait(browser).until(lambda b: b.find_element(By.TAG_NAME, "h1").text == "Chaves de API")
    row = browser.find_element(By.CSS_SELECTOR, "#keys tr[data-prefix]").text
    assert "10/03/2027" in row
    assert browser.find_element(By.NAME, "issue").text == "Emitir a chave"

    switch_language(browser, "en", "en")
    assert browser.current_url == f"{live_server.url}/account/keys/"
    assert browser.find_element(By.TAG_NAME, "h1").text == "API keys"
    assert "2027-03-10" in browser.find_element(By.CSS_SELECTOR, "#keys tr[data-prefix]").text
