"""A real headless Chromium (Debian's chromium + chromium-driver) for the admin flows; a real Celery
worker."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator

import pytest
from django.contrib.auth import get_user_model
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.e2e.layout_data import signed_up_customer
from tests.webhooks.support import Worker, purge_queues

CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]


@pytest.fixture
def browser(tmp_path) -> Iterator[webdriver.Chrome]:
    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not binary or not driver:
        pytest.skip(
            "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]:
        options.add_argument(flag)
    chrome = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    chrome.implicitly_wait(5)
    yield chrome
    chrome.quit()


@pytest.fixture
def admin_login(browser, live_server, transactional_db) -> Callable[[], webdriver.Chrome]:
    """Create a staff superuser and sign the browser in to /admin/."""

    def login() -> webdriver.Chrome:
        get_user_model().objects.create_superuser("staff", "staff@example.com", "staff-password")
        browser.get(f"{live_server.url}/admin/login/")
        browser.find_element(By.NAME, "username").send_keys("staff")
        browser.find_element(By.NAME, "password").send_keys("staff-password")
        browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
        WebDriverWait(browser, 15).until(lambda b: "Site administration" in b.title)
        return browser

    return login


@pytest.fixture
def worker(transactional_db) -> Iterator[Worker]:
    """One real Celery worker on the test database, on queues emptied of earlier runs' tasks."""
    purge_queues()
    worker = Worker().start()
    yield worker
    worker.stop()


# The delivery tests' real parts (local receivers, Celery worker subprocesses).
from tests.webhooks.conftest import make_receiver, start_worker  # noqa: E402, F401


@pytest.fixture
def customer(browser, live_server, transactional_db, default_plans, settings) -> webdriver.Chrome:
    """A customer signed up through the form, with wide data in every table (tests/e2e/layout_data.py)."""
    return signed_up_customer(browser, live_server)
