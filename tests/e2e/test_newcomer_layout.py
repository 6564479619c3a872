"""The layout items a newcomer met (issue 45, point 7), each in a real Chromium at a phone's width (390 px)
and a laptop's screen (1366x768): the demo receiver's page never widens with a long body, code words do not
break inside, every secret shown once has a Copy button that copies it, the Revoke and Delete buttons are on
screen on a phone, the register form's secret help fits creating, the signature guide is a link, `/bonds/`
is a page, and the site has a favicon."""

from __future__ import annotations

import json

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.e2e.pages import assert_no_body_scroll, shot, viewport, wait
from tests.e2e.test_page_layout import LAPTOP, PHONE

pytestmark = pytest.mark.browser
SIZES = pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["390px", "1366x768"])
LONG_MEDIA_URL = "https://mmg.whatsapp.net/v/t62.7118-24/" + "a1b2c3d4e5f6" * 30 + ".enc?ccb=11-4&oh=01_Q5AaI"


# The character before each line break inside an element's text.
LINE_BREAKS = """
const text = arguments[0].firstChild, range = document.createRange(), breaks = [];
let top = null;
for (let i = 0; i < text.length; i++) {
  range.setStart(text, i); range.setEnd(text, i + 1);
  const box = range.getClientRects()[0];
  if (!box) continue;
  if (top !== null && box.top > top + 2) breaks.push(text.data[i - 1]);
  top = box.top;
}
return breaks;
"""


def _on_screen(browser: webdriver.Chrome, element) -> bool:
    box = browser.execute_script(
        "const b = arguments[0].getBoundingClientRect(); return [b.left, b.right]", element
    )
    return box[0] >= 0 and box[1] <= browser.execute_script("return window.innerWidth")


def _issue_key(browser: webdriver.Chrome, live_server) -> str:
    browser.get(f"{live_server.url}/account/keys/")
    browser.find_element(By.NAME, "name").send_keys("ci")
    browser.find_element(By.NAME, "issue").click()
    return wait(browser).until(lambda b: b.find_element(By.ID, "new-key-value").text)


@SIZES
def test_the_demo_receiver_page_wraps_a_long_media_url(
    customer, live_server, settings, tmp_path, size
) -> None:
    settings.PONTE_DEMO_RECEIVER = True
    browser = customer
    body = {"event": "message", "data": {"type": "image", "mediaUrl": LONG_MEDIA_URL}}
    browser.execute_async_script(
        "const done = arguments[1]; fetch('/demo/webhook', {method: 'POST', body: arguments[0],"
        " headers: {'Content-Type': 'application/json'}}).then(() => done(), () => done());",
        json.dumps(body),
    )
    viewport(browser, size)
    browser.get(f"{live_server.url}/demo/")
    assert "a1b2c3d4e5f6" in browser.find_element(By.ID, "received").text
    shot(browser, tmp_path, f"demo-{size[0]}")
    assert_no_body_scroll(browser, "/demo/")


@SIZES
def test_a_new_key_has_a_copy_button_that_copies_it_and_code_words_stay_whole(
    customer, live_server, tmp_path, size
) -> None:
    browser = customer
    viewport(browser, size)
    browser.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"origin": live_server.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    plaintext = _issue_key(browser, live_server)
    shot(browser, tmp_path, f"new-key-{size[0]}")
    assert_no_body_scroll(browser, "/account/keys/ (the new key)")
    copy = browser.find_element(By.CSS_SELECTOR, "#new-key button[data-copy]")
    assert _on_screen(browser, copy)
    copy.click()
    wait(browser).until(lambda b: copy.text in ("Copied", "Copiado"))
    pasted = browser.execute_async_script("navigator.clipboard.readText().then(arguments[0])")
    assert pasted == plaintext
    # Code words break only after a separator ("X-API-" / "Key"), never inside a word ("X-API-K" / "ey").
    for code in browser.find_elements(By.CSS_SELECTOR, "#new-key .help code"):  # the key itself may not fit
        breaks = browser.execute_script(LINE_BREAKS, code)
        assert set(breaks) <= set("-/_.?&="), f"{code.text!r} breaks after {breaks} at {size[0]} px"


@SIZES
def test_the_revoke_and_delete_buttons_are_on_screen(customer, live_server, tmp_path, size) -> None:
    browser = customer
    viewport(browser, size)
    _issue_key(browser, live_server)
    for page, button in (("/account/keys/", "revoke"), ("/account/webhooks/", "delete")):
        browser.get(f"{live_server.url}{page}")
        shot(browser, tmp_path, f"{button}-{size[0]}")
        assert_no_body_scroll(browser, page)
        found = browser.find_elements(By.NAME, button)
        assert found and all(_on_screen(browser, element) for element in found), (
            f"{page}: {button} off screen"
        )


@SIZES
def test_the_register_form_helps_with_creating_and_links_the_signature_guide(
    customer, live_server, size
) -> None:
    browser = customer
    viewport(browser, size)
    # The Free plan's one webhook is taken by the fixture's: delete it, to see the form.
    browser.get(f"{live_server.url}/account/webhooks/")
    browser.find_element(By.NAME, "delete").click()
    form = wait(browser).until(lambda b: b.find_element(By.ID, "create-webhook"))
    assert "leave empty to keep" not in form.text
    guide = browser.find_element(By.PARTIAL_LINK_TEXT, "docs/webhooks.md")
    assert _on_screen(browser, guide)
    guide.click()
    wait(browser).until(lambda b: "x-webhook-signature" in b.find_element(By.TAG_NAME, "body").text)
    assert_no_body_scroll(browser, "docs/webhooks.md")


@SIZES
def test_bonds_in_a_browser_is_a_page_and_the_site_has_a_favicon(
    browser, live_server, tmp_path, size
) -> None:
    viewport(browser, size)
    browser.get(f"{live_server.url}/bonds/")
    wait(browser).until(lambda b: b.find_elements(By.CSS_SELECTOR, "main h1"))
    shot(browser, tmp_path, f"bonds-{size[0]}")
    assert_no_body_scroll(browser, "/bonds/")
    links = {a.get_attribute("pathname") for a in browser.find_elements(By.CSS_SELECTOR, "main a")}
    assert {"/docs/", "/bonds/mcp", "/bonds/api/"} <= links
    icon = browser.execute_async_script(
        "const done = arguments[0]; const href = document.querySelector('link[rel=icon]').href;"
        " fetch(href).then((r) => done([r.status, r.headers.get('content-type')]));"
    )
    assert icon == [200, "image/svg+xml"]


@SIZES
def test_the_error_and_landing_pages_do_not_scroll_sideways(customer, live_server, tmp_path, size) -> None:
    browser = customer
    viewport(browser, size)
    for page in ["/", "/account/no-such-page/", "/account/deliveries/resend/"]:
        browser.get(f"{live_server.url}{page}")
        wait(browser).until(lambda b: b.find_elements(By.CSS_SELECTOR, "main h1"))
        shot(browser, tmp_path, f"{size[0]}{page.replace('/', '_')}")
        assert_no_body_scroll(browser, page)
