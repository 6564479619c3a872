"""What the browser tests share: waits that hold while a page is being replaced under them."""

from __future__ import annotations

import os
from pathlib import Path

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


def viewport(browser: webdriver.Chrome, size: tuple[int, int]) -> None:
    """An exact viewport of this size (a window of that size has less room inside)."""
    width, height = size
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    assert browser.execute_script("return [window.innerWidth, window.innerHeight]") == [width, height]


def shot(browser: webdriver.Chrome, folder: Path, name: str) -> None:
    """Keep a screenshot of each page checked, to look at when a bound fails (PONTE_SCREENSHOTS=dir
    keeps them somewhere handier than pytest's tmp_path)."""
    target = Path(os.environ.get("PONTE_SCREENSHOTS") or folder)
    target.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(target / f"{name}.png"))


def overflow(browser: webdriver.Chrome) -> tuple[int, int]:
    return tuple(browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]"))


def assert_no_body_scroll(browser: webdriver.Chrome, page: str) -> None:
    scroll_width, inner_width = overflow(browser)
    assert scroll_width <= inner_width, f"{page}: the body scrolls sideways ({scroll_width} > {inner_width})"
