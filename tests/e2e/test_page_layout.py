"""The pages at a phone's width (390 px) and a laptop's screen (1366x768) in a real Chromium: no
horizontal scroll on the page body (wide tables scroll inside their own box), a compact header on the
phone, the session's QR code above the fold and every column of the admin's dead-letter list in view."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from selenium import webdriver
from selenium.webdriver.common.by import By

from messaging.models import Session
from tests.e2e.layout_data import LONG_URL
from tests.e2e.pages import assert_no_body_scroll, shot, switch_language, viewport, wait
from webhooks.models import Delivery, Event, Webhook

pytestmark = pytest.mark.browser
PHONE, LAPTOP = (390, 844), (1366, 768)
ACCOUNT_PAGES = ["/account/", "/account/keys/", "/account/sessions/", "/account/webhooks/"]


def _header_height(browser: webdriver.Chrome) -> float:
    return browser.execute_script(
        "return document.querySelector('body > header').getBoundingClientRect().height"
    )


def _session_path(live_server) -> str:
    return f"/account/sessions/{Session.objects.get(name='customer-support-main-line').pk}/"


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390px", "1366x768"])
def test_no_account_page_scrolls_sideways_and_wide_tables_scroll_in_their_own_box(
    customer, live_server, tmp_path, size
) -> None:
    browser = customer
    viewport(browser, size)
    pages = [*ACCOUNT_PAGES, _session_path(live_server), "/account/deliveries/", "/"]
    for page in pages:
        browser.get(f"{live_server.url}{page}")
        wait(browser).until(lambda b: b.find_elements(By.CSS_SELECTOR, "main h1"))
        shot(browser, tmp_path, f"{size[0]}{page.replace('/', '_')}")
        assert_no_body_scroll(browser, page)
        if size == PHONE:
            height = _header_height(browser)
            assert height <= 120, f"{page}: the header is {height} px tall at 390 px"
        for table in browser.find_elements(By.CSS_SELECTOR, "main table"):
            right = browser.execute_script(
                "return arguments[0].parentElement.getBoundingClientRect().right", table
            )
            assert right <= size[0], f"{page}: a table's box ends at {right} px"


def test_the_delivery_log_wraps_long_urls_and_errors_sensibly_on_a_phone(
    customer, live_server, tmp_path
) -> None:
    browser = customer
    viewport(browser, PHONE)
    browser.get(f"{live_server.url}/account/deliveries/")
    shot(browser, tmp_path, "deliveries-390")
    assert_no_body_scroll(browser, "/account/deliveries/")
    box = browser.find_element(By.CSS_SELECTOR, "#deliveries").find_element(By.XPATH, "..")
    assert box.value_of_css_property("overflow-x") == "auto"
    # A URL broken every few characters is a column squeezed to nothing: the URL keeps a readable width.
    url_cell = browser.find_element(By.CSS_SELECTOR, "#deliveries tr[data-status=dead] td.mono")
    assert url_cell.size["width"] >= 150
    lines = browser.execute_script(
        "const c = arguments[0], r = document.createRange(); r.selectNodeContents(c);"
        "return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size",
        url_cell,
    )
    assert lines <= 12, f"the URL takes {lines} lines"


def test_the_webhook_id_stays_on_one_line_on_a_phone(customer, live_server, tmp_path) -> None:
    browser = customer
    viewport(browser, PHONE)
    browser.get(f"{live_server.url}/account/webhooks/")
    shot(browser, tmp_path, "webhooks-390")
    code = browser.find_element(By.CSS_SELECTOR, "#webhooks tr[data-id] td code")
    line_height = browser.execute_script(
        "return parseFloat(getComputedStyle(arguments[0]).lineHeight) || 20", code
    )
    assert code.size["height"] <= line_height * 1.5, "the webhook id wraps"


def test_the_sign_in_page_fits_a_phone_and_a_laptop(browser, live_server, tmp_path) -> None:
    for size in (PHONE, LAPTOP):
        viewport(browser, size)
        browser.get(f"{live_server.url}/account/login/")
        shot(browser, tmp_path, f"login-{size[0]}")
        assert_no_body_scroll(browser, "/account/login/")
        assert _header_height(browser) <= 120


def test_the_sessions_qr_code_is_above_the_fold_on_a_laptop(customer, live_server, tmp_path) -> None:
    browser = customer
    viewport(browser, LAPTOP)
    browser.get(f"{live_server.url}{_session_path(live_server)}")
    qr = wait(browser, 20).until(
        lambda b: (image := b.find_element(By.ID, "qr")).get_attribute("data-code") and image
    )
    wait(browser).until(lambda b: b.execute_script("return arguments[0].complete", qr))
    shot(browser, tmp_path, "session-1366")
    bottom = browser.execute_script("return arguments[0].getBoundingClientRect().bottom", qr)
    assert 0 < bottom <= LAPTOP[1], f"the QR code ends at {bottom} px, below the fold"
    # The whole pairing box too: its expiry and the sandbox's pair button, with room to spare for the
    # status card growing (a phone number, the instance key shown once).
    card = browser.execute_script("return document.getElementById('pairing').getBoundingClientRect().bottom")
    assert card <= LAPTOP[1] - 60, f"the pairing box ends at {card} px"


def test_the_admin_dead_letter_list_shows_every_column_on_a_laptop(
    admin_login, live_server, tmp_path, make_account
):
    account = make_account(name="acme-layout")
    session = Session.objects.create(account=account, name="customer-support-main-line", status="connected")
    webhook = Webhook.objects.create(account=account, session=session, url=LONG_URL, events=["message"])
    for number in range(3):
        event = Event.objects.create(session=session, name="session.status", event_ms=0, received_at_ms=0)
        Delivery.objects.create(
            event=event,
            session=session,
            webhook=webhook,
            target_url=LONG_URL,
            payload={"n": number},
            status=Delivery.Status.DEAD,
            max_attempts=10,
            attempt_count=10,
            last_status_code=503,
            next_attempt_at=timezone.now(),
            dead_at=timezone.now(),
        )
    browser = admin_login()
    for size in (LAPTOP, PHONE):
        viewport(browser, size)
        browser.get(f"{live_server.url}/admin/webhooks/delivery/?status__exact=dead")
        wait(browser).until(lambda b: b.find_elements(By.ID, "result_list"))
        shot(browser, tmp_path, f"admin-dead-letters-{size[0]}")
        assert_no_body_scroll(browser, "the dead-letter list")
    viewport(browser, LAPTOP)
    browser.get(f"{live_server.url}/admin/webhooks/delivery/?status__exact=dead")
    headings = browser.find_elements(By.CSS_SELECTOR, "#result_list thead th")
    assert len(headings) == 10  # the tick box and nine columns
    scroll, client, box_right = browser.execute_script(
        "const box = document.querySelector('.results');"
        "return [box.scrollWidth, box.clientWidth, box.getBoundingClientRect().right]"
    )
    assert scroll <= client, "columns hidden behind the list's horizontal scroll"
    for cell in headings + browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr:first-child > *"):
        right = browser.execute_script("return arguments[0].getBoundingClientRect().right", cell)
        assert right <= min(box_right, LAPTOP[0]), f"{cell.get_attribute('class')} ends at {right} px"


def test_the_header_stays_compact_on_a_phone_in_portuguese(customer, live_server, tmp_path) -> None:
    browser = customer
    viewport(browser, PHONE)
    browser.get(f"{live_server.url}/account/")
    switch_language(browser, "pt-br", "pt-BR")
    for page in ["/account/", "/account/deliveries/", _session_path(live_server)]:
        browser.get(f"{live_server.url}{page}")
        shot(browser, tmp_path, f"pt-390{page.replace('/', '_')}")
        assert_no_body_scroll(browser, page)
        height = _header_height(browser)
        assert height <= 120, f"{page}: the header is {height} px tall at 390 px in Portuguese"


def _header_rows(browser: webdriver.Chrome) -> int:
    """How many rows of links and buttons the header shows: the lines its bar wraps into, plus the extra
    lines its links wrap into inside the bar."""
    return browser.execute_script(
        """
        const lines = (elements) => {
          const boxes = [...elements].map((e) => e.getBoundingClientRect()).filter((b) => b.width)
            .sort((a, b) => a.top - b.top);
          let count = 0, bottom = -Infinity;
          for (const box of boxes) {
            if (box.top >= bottom - 1) { count += 1; bottom = box.bottom; }
            else bottom = Math.max(bottom, box.bottom);
          }
          return count;
        };
        const bar = document.querySelector('body > header .bar');
        const nav = bar.querySelectorAll('nav a');
        return lines(bar.children) + Math.max(lines(nav), 1) - 1;
        """
    )


def test_the_header_sits_on_one_or_two_rows_at_1366_px_in_both_languages(
    customer, live_server, tmp_path
) -> None:
    browser = customer
    viewport(browser, LAPTOP)
    # A long email too: it is cut with an ellipsis rather than pushing the header onto a third row.
    User = get_user_model()
    User.objects.filter(email="layout@example.com").update(
        email="customer.support.team.lead@example-company.com.br"
    )
    browser.get(f"{live_server.url}/account/")
    for label, lang in (("en", "en"), ("pt-br", "pt-BR")):
        if lang != "en":
            switch_language(browser, label, lang)
        for page in [*ACCOUNT_PAGES, "/account/deliveries/", "/"]:
            browser.get(f"{live_server.url}{page}")
            shot(browser, tmp_path, f"{lang}-1366{page.replace('/', '_')}")
            rows = _header_rows(browser)
            assert rows <= 2, f"{page} in {lang}: the header wraps into {rows} rows at 1366 px"
