"""The landing page and the account area answer 404, 405 and 500 with pages of their own, translated and in
the site's layout, even under DEBUG (make run); the machine interfaces keep their JSON errors; `/bonds/` in
a browser is a page pointing to the docs and the MCP page (issue 45)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import ApiKey
from accounts.services import api_key_create

HTML = "text/html,application/xhtml+xml,*/*;q=0.8"


def in_the_sites_layout(html: str) -> bool:
    return '<a class="brand" href="/">Ponte</a>' in html and "</main>" in html


@pytest.mark.parametrize("debug", [True, False])
def test_a_mistyped_account_url_is_the_areas_own_404_page_even_under_debug(customer, settings, debug) -> None:
    settings.DEBUG = debug
    browser, _ = customer
    response = browser.get("/account/keyz/")
    html = response.content.decode()
    assert response.status_code == 404 and in_the_sites_layout(html)
    assert "Not found" in html and "URLconf" not in html and "Back to your account" in html


def test_the_404_page_is_in_portuguese_for_a_portuguese_visitor(client, settings) -> None:
    settings.DEBUG = True
    html = client.get("/account/nada/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "Página não encontrada" in html and "Erro 404" in html and 'lang="pt-BR"' in html


def test_another_accounts_key_is_the_404_page_not_djangos_technical_one(
    customer, make_account, settings
) -> None:
    settings.DEBUG = True
    browser, _ = customer
    other_key, _ = api_key_create(account=make_account(name="other"), role=ApiKey.Role.ADMIN)
    response = browser.post(f"/account/keys/{other_key.pk}/revoke/")
    assert response.status_code == 404 and in_the_sites_layout(response.content.decode())


def test_a_get_on_a_post_only_url_is_a_405_page_with_its_allow_header(customer) -> None:
    browser, account = customer
    key, _ = api_key_create(account=account, role=ApiKey.Role.ADMIN)
    response = browser.get(f"/account/keys/{key.pk}/revoke/", HTTP_ACCEPT_LANGUAGE="pt-BR")
    html = response.content.decode()
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert in_the_sites_layout(html) and "Não disponível desta forma" in html


def test_a_crash_in_the_account_area_is_a_500_page_and_in_the_api_a_json_error(db, settings) -> None:
    settings.ROOT_URLCONF = "tests.accounts.crash_urls"
    settings.DEBUG = False
    browser = Client(raise_request_exception=False)
    page = browser.get("/account/crash/", HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert page.status_code == 500 and in_the_sites_layout(page.content.decode())
    assert "Algo deu errado" in page.content.decode()
    api = browser.get("/api/crash")
    assert api.status_code == 500 and api["Content-Type"] == "application/json"


def test_the_slashless_account_url_still_redirects_to_its_page(customer) -> None:
    browser, _ = customer
    response = browser.get("/account/keys")
    assert response.status_code == 301 and response["Location"] == "/account/keys/"


def test_the_api_keeps_its_json_404(client, db, settings) -> None:
    settings.DEBUG = True
    response = client.get("/api/nothing-here", HTTP_ACCEPT=HTML)
    assert response.status_code == 404 and response["Content-Type"] == "application/json"


def test_bonds_root_in_a_browser_is_a_page_linking_the_docs_and_the_mcp_page(client) -> None:
    response = client.get("/bonds/", HTTP_ACCEPT=HTML)
    html = response.content.decode()
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    assert in_the_sites_layout(html)
    assert 'href="/docs/"' in html and 'href="/bonds/mcp"' in html and 'href="/bonds/api/"' in html


def test_bonds_root_for_a_program_is_the_bond_interfaces_json_not_found(client) -> None:
    for accept in ("*/*", "application/json"):
        reply = client.get("/bonds/", HTTP_ACCEPT=accept)
        assert reply["Content-Type"] == "application/json"
        assert reply.json()["response"]["status"] == "not_found"  # HTTP 200, as every bond reply (seed)


def test_a_json_answer_of_the_account_area_stays_json(db, settings) -> None:
    settings.ROOT_URLCONF = "tests.accounts.crash_urls"
    reply = Client().get("/account/json-missing/")
    assert reply.status_code == 404 and reply.json() == {"error": "gone"}
