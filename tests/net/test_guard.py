"""No outside call inside a transaction (net.guard): every outbound HTTP path refuses to start a request
while the code running holds a transaction open, naming the call; a test case's own wrapping blocks do
not count. On for the whole suite (tests/isolation.py); these tests misuse the paths on purpose and empty
the suite's list of refusals (tests/conftest.py) once they have checked it."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

import pytest
from django.db import transaction

from accounts.models import Plan
from bonds.providers.base import http_get
from core.transactions import transaction_open
from messaging.channels import graph
from net.guard import OutsideCallInTransaction
from net.transport import http_session, safe_get, safe_post
from tests.localhttp import serving


class Answering(BaseHTTPRequestHandler):
    """Any outside service: records the request, answers 200."""

    def log_message(self, *args) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.server.received.append((self.command, self.path, self.rfile.read(length) if length else b""))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    do_GET = do_POST = _answer


@pytest.fixture
def receiver():
    with serving(Answering) as server:
        server.received = []
        yield server


def _url(server, path: str = "/hook") -> str:
    return f"http://127.0.0.1:{server.server_address[1]}{path}"


CALLS = {
    "safe_post": lambda url: safe_post(url, body=b"{}", headers={}, timeout=2),
    "safe_get": lambda url: safe_get(url, max_bytes=1000, timeout=2),
    "http_session": lambda url: http_session().get(url, timeout=2),
    "bond source": lambda url: http_get(url, timeout=2, what="Tesouro"),
}


@pytest.mark.usefixtures("allow_loopback")
@pytest.mark.django_db
@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_a_request_started_inside_a_transaction_is_refused_naming_the_call(
    receiver, call, outside_calls_in_transaction
) -> None:
    with transaction.atomic(), pytest.raises(OutsideCallInTransaction) as refused:
        call(_url(receiver))
    assert "/hook" in str(refused.value) and "inside a database transaction" in str(refused.value)
    assert receiver.received == [], "the request never started"
    assert len(outside_calls_in_transaction) == 1, "recorded for the suite even when a caller catches it"
    outside_calls_in_transaction.clear()


@pytest.mark.django_db
def test_a_graph_api_call_inside_a_row_lock_is_refused_before_it_connects(
    settings, outside_calls_in_transaction
) -> None:
    settings.PONTE_GRAPH_API_URL = "http://127.0.0.1:9"  # nothing listens: the guard answers first
    with transaction.atomic():
        Plan.objects.select_for_update().first()
        with pytest.raises(OutsideCallInTransaction, match="Graph API GET 123/messages"):
            graph.call("GET", "123/messages", "token")
    outside_calls_in_transaction.clear()


@pytest.mark.usefixtures("allow_loopback")
@pytest.mark.django_db
@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_the_test_case_s_own_transaction_does_not_count(receiver, call) -> None:
    assert transaction.get_connection().in_atomic_block, "the test case wraps the test in its own"
    assert not transaction_open()
    call(_url(receiver))
    assert len(receiver.received) == 1


@pytest.mark.usefixtures("allow_loopback")
@pytest.mark.django_db(transaction=True)
def test_without_a_test_case_s_transaction_the_same_rules_hold(
    receiver, outside_calls_in_transaction
) -> None:
    assert safe_post(_url(receiver), body=b"{}", headers={}, timeout=2).ok
    with transaction.atomic():
        assert transaction_open()
        with pytest.raises(OutsideCallInTransaction):
            safe_post(_url(receiver), body=b"{}", headers={}, timeout=2)
    assert len(receiver.received) == 1
    outside_calls_in_transaction.clear()


@pytest.mark.usefixtures("allow_loopback")
@pytest.mark.django_db
def test_the_guard_is_off_unless_the_setting_asks_for_it(receiver, settings) -> None:
    settings.PONTE_REFUSE_OUTSIDE_CALLS_IN_TRANSACTION = False  # production's default
    with transaction.atomic():
        assert safe_post(_url(receiver), body=b"{}", headers={}, timeout=2).ok
    assert len(receiver.received) == 1


def test_the_whole_suite_runs_with_the_guard_on() -> None:
    from django.conf import settings

    assert settings.PONTE_REFUSE_OUTSIDE_CALLS_IN_TRANSACTION is True
