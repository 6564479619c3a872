"""The account area's delivery log says in plain words why an attempt failed; the worker's detailed
text (the transport's own, naming its connection classes) stays in the records, the logs and the admin."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
from django.test import Client

from accounts.models import Account
from messaging.services import sessions as session_services
from webhooks.delivery_errors import customer_error_text
from webhooks.models import Delivery
from webhooks.outbox import drains
from webhooks.outbox.posting import WEBHOOK_DELETED
from webhooks.registered.services import webhook_create
from webhooks.services import emit


@pytest.fixture
def customer(customer, allow_loopback) -> tuple[Client, Account]:
    """The signed-in customer, with webhooks to 127.0.0.1 allowed."""
    return customer


@pytest.fixture
def listening() -> Iterator[socket.socket]:
    """A local socket that accepts connections and answers nothing useful."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server
    server.close()


def _attempt(account: Account, url: str, *, timeout: float = 5.0) -> Delivery:
    session = session_services.session_create(account=account, name="s")
    webhook_create(account=account, session_id=session.pk, url=url, events=["message"])
    emit(session_id=session.pk, name="message", data={"text": "hi"})
    delivery = Delivery.objects.get(session=session)
    Delivery.objects.filter(pk=delivery.pk).update(timeout_seconds=timeout)
    drains.delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    return delivery


def _log(browser: Client, **headers: str) -> str:
    page = browser.get("/account/deliveries/", **headers).content.decode()
    start = page.index('<table id="deliveries"')
    return page[start : page.index("</table>", start)]


def _closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def test_a_refused_connection_reads_as_a_sentence_and_the_detail_stays_for_staff(
    customer, admin_client
) -> None:
    browser, account = customer
    delivery = _attempt(account, f"http://127.0.0.1:{_closed_port()}/hook")
    assert "VettedHTTPConnection" in delivery.last_error and "Connection refused" in delivery.last_error
    log = _log(browser)
    assert log.count("Connection refused: nothing accepts connections") == 2  # the delivery and its attempt
    assert "VettedHTTPConnection" not in log and "Errno" not in log
    assert "Conexão recusada" in _log(browser, HTTP_ACCEPT_LANGUAGE="pt-BR")
    admin_page = admin_client.get(f"/admin/webhooks/delivery/{delivery.pk}/change/").content.decode()
    assert "VettedHTTPConnection" in admin_page


def test_a_receiver_that_never_answers_reads_as_timed_out(customer, listening) -> None:
    browser, account = customer
    delivery = _attempt(account, f"http://127.0.0.1:{listening.getsockname()[1]}/hook", timeout=0.5)
    assert delivery.last_error.startswith("timeout")
    log = _log(browser)
    assert "Timed out: the receiver did not answer in time." in log and "_VettedHTTPPool" not in log


def test_a_failed_tls_handshake_reads_as_a_tls_error(customer, listening) -> None:
    def answer_in_plain_http() -> None:
        connection, _ = listening.accept()
        connection.recv(1024)
        connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        connection.close()

    threading.Thread(target=answer_in_plain_http, daemon=True).start()
    browser, account = customer
    delivery = _attempt(account, f"https://127.0.0.1:{listening.getsockname()[1]}/hook")
    assert "SSL" in delivery.last_error
    log = _log(browser)
    assert "TLS error: the secure (https) connection" in log and "_ssl.c" not in log


def test_an_address_refused_at_connection_time_reads_as_refused_by_the_network_rules(
    customer, settings
) -> None:
    browser, account = customer
    session = session_services.session_create(account=account, name="s")
    webhook_create(account=account, session_id=session.pk, url="http://127.0.0.1:9/hook", events=["message"])
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = []  # loopback no longer allowed when the worker connects
    emit(session_id=session.pk, name="message", data={"text": "hi"})
    drains.delivery_attempt(delivery_id=Delivery.objects.get(session=session).pk)
    assert "SSRF protection" in _log(browser)


def test_other_recorded_texts_read_plainly() -> None:
    assert customer_error_text("") == ""
    assert customer_error_text("HTTP 500") == "HTTP 500"
    assert customer_error_text(WEBHOOK_DELETED) == "The webhook was deleted before delivery."
    dns = "connection error: [Errno -2] Name or service not known"
    assert customer_error_text(dns) == "DNS failure: the receiver's host name could not be resolved."
    assert customer_error_text("no complete answer within 10 s").startswith("Timed out")
    assert customer_error_text("something nobody foresaw: <Pool(host=x)>") == "The delivery failed."
