"""What the browser tests share: waits that hold while a page is being replaced under them."""

from __future__ import annotations

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def wait(browser: webdriver.Chrome, seconds: float = 15) -> WebDriverWait:
    """A wait that looks again when the page it read was replaced by the next one meanwhile."""
    return WebDriverWait(browser, seconds, ignored_exceptions=[StaleElementReferenceException])


def switch_language(browser: webdriver.Chrome, label: str, expected_lang: str) -> None:
    """Press the language switcher's button and wait for the page it posts back to. The page's language
    is read in one script call, not through an element found first: while the old page is replaced an
    element may belong to neither document, which Chrome reports as a plain WebDriverException (seen in
    CI: "Node with given id does not belong to the document"), so those are waited out too."""
    browser.find_element(By.CSS_SELECTOR, f"#language button[lang='{label}']").click()
    WebDriverWait(browser, 15, ignored_exceptions=[WebDriverException]).until(
        lambda b: b.execute_script("return document.documentElement.lang") == expected_lang
    )
