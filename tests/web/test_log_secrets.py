"""No secret in any log line of any logger: 4xx and 5xx requests on every route that carries a credential
(in its path, its query string or its headers), and the console output of the root's handler searched
for each one. Django's own lines are the ones at stake ("Bad Request: /instances/<key>/instance",
"Internal Server Error: ..." with its traceback); the filter is core.logfilters.SecretRedaction."""

from __future__ import annotations

import io
import logging
import uuid
from collections.abc import Iterator

import pytest
from django.db import connection, transaction
from django.test import Client

from accounts.keys import KEY_PREFIX
from core.logfilters import SecretRedaction, redacted
from messaging.models import Session
from tests.messaging.pairing import pair_sandbox_session
from tests.web.observe_support import WebServer

pytestmark = pytest.mark.django_db

# Shaped like what they stand for, unique so that a hit can only come from this test.
FAKE_API_KEY = f"ponte_fakekey1_{uuid.uuid4().hex}"
FAKE_INSTANCE_KEY = f"ik{uuid.uuid4().hex}"
FAKE_TOKEN = f"tok{uuid.uuid4().hex}"
FAKE_QUERY_KEY = f"qk{uuid.uuid4().hex}"
FAKE_BEARER = f"br{uuid.uuid4().hex}"
NOT_JSON = {"data": b"{", "content_type": "application/json"}


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """What the root's handler prints (the LOGGING console handler, redaction included), at INFO."""
    root = logging.getLogger()
    handlers = [h for h in root.handlers if any(isinstance(f, SecretRedaction) for f in h.filters)]
    assert handlers, "the root logger's console handler must carry core.logfilters.SecretRedaction"
    buffer = io.StringIO()
    streams = [handler.setStream(buffer) for handler in handlers]
    level = root.level
    root.setLevel(logging.INFO)
    try:
        yield buffer
    finally:
        root.setLevel(level)
        for handler, stream in zip(handlers, streams, strict=True):
            handler.setStream(stream)


@pytest.fixture
def caller() -> Client:
    # Exceptions become the 500 a client gets, as in production, instead of being raised in the test.
    return Client(raise_request_exception=False)


@pytest.fixture
def session(admin_key) -> Session:
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_X_API_KEY=admin_key)
    return pair_sandbox_session(client)


def _secret_headers(api_key: str) -> dict[str, str]:
    return {"HTTP_X_API_KEY": api_key, "HTTP_AUTHORIZATION": f"Bearer {FAKE_BEARER}"}


def _requests(instance_key: str, api_key: str) -> list[tuple[str, str, dict]]:
    """(method, path, extra) for every route that carries a credential, each bound to fail."""
    query = f"?key={FAKE_QUERY_KEY}&apiKey={FAKE_QUERY_KEY}&token={FAKE_QUERY_KEY}"
    requests: list[tuple[str, str, dict]] = []
    for key in (instance_key, FAKE_INSTANCE_KEY):
        for tail in ("instance", "instance/webhook/statistics", "chatwoot", "chatwoot/webhook-token",
                     "chatwoot/templates/sync", "nothing-here"):  # fmt: skip
            requests.append(("GET", f"/instances/{key}/{tail}{query}", {}))
        # A body that is not JSON: the probe's "Bad Request: /instances/<key>/instance".
        requests.append(("PUT", f"/instances/{key}/instance", NOT_JSON))
        requests.append(("POST", f"/instances/{key}/chatwoot/webhook-token", {}))
    requests += [
        ("POST", f"/integrations/chatwoot/{FAKE_TOKEN}{query}", NOT_JSON),
        ("GET", f"/api/media/{FAKE_TOKEN}", _secret_headers(api_key)),
        ("GET", f"/account/verify/MQ/{FAKE_TOKEN}/", {}),
        ("GET", f"/account/reset/MQ/{FAKE_TOKEN}/", {}),
        ("GET", f"/channels/whatsapp_cloud/{uuid.uuid4()}/webhook?hub.verify_token={FAKE_TOKEN}", {}),
        ("GET", f"/bonds/api/{query}", {}),
        ("GET", f"/bonds/api/?key={api_key}", {}),
        ("GET", "/api/me", {"HTTP_X_API_KEY": FAKE_API_KEY}),
        ("GET", f"/api/sessions/{uuid.uuid4()}{query}", _secret_headers(api_key)),
        ("POST", "/api/messages/send", {**_secret_headers(api_key), **NOT_JSON}),
        ("GET", "/gateway/me", {"HTTP_X_API_KEY": FAKE_API_KEY}),
        ("POST", f"/gateway/webhooks{query}", {**_secret_headers(api_key), **NOT_JSON}),
        ("GET", f"/gateway/nothing-here{query}", _secret_headers(api_key)),
        ("GET", "/metrics", {"HTTP_AUTHORIZATION": f"Bearer {FAKE_BEARER}"}),
    ]  # fmt: skip
    return requests


def _send(caller: Client, method: str, path: str, extra: dict) -> int:
    extra = dict(extra)
    data = extra.pop("data", None)
    content_type = extra.pop("content_type", "application/octet-stream")
    return caller.generic(method, path, data or b"", content_type=content_type, **extra).status_code


def _secrets(instance_key: str, api_key: str) -> list[str]:
    # The secret follows the prefix's underscore (accounts.keys.prefix_of); it may hold underscores of its
    # own (URL-safe base64), so the last one would sometimes leave a single character to look for.
    secret_of_api_key = api_key[len(KEY_PREFIX) :].partition("_")[2]
    return [instance_key, secret_of_api_key, FAKE_API_KEY.rsplit("_", 1)[1], FAKE_INSTANCE_KEY, FAKE_TOKEN,
            FAKE_QUERY_KEY, FAKE_BEARER]  # fmt: skip


def test_no_4xx_line_of_any_logger_carries_a_key_or_token(caller, console, session, admin_key, settings):
    settings.PONTE_METRICS_TOKEN = "metrics-token-" + uuid.uuid4().hex
    statuses = [
        _send(caller, method, path, extra)
        for method, path, extra in _requests(session.instance_key, admin_key)
    ]
    assert any(400 <= status < 500 for status in statuses)
    output = console.getvalue()
    # Django's own lines were written, with the secret parts hidden.
    assert "Bad Request: /instances/***/instance" in output, output[-2000:]
    assert "Not Found: /integrations/chatwoot/***" in output, output[-2000:]
    for secret in _secrets(session.instance_key, admin_key):
        assert secret not in output, (secret, output)


def test_no_5xx_line_or_traceback_carries_a_key_or_token(caller, console, session, admin_key, settings):
    """The tables the credentials are looked up in are gone (renamed for the test): every secret-bearing
    route fails on the database, and Django logs the path and the traceback."""
    tables = ["messaging_session", "accounts_apikey", "integrations_chatwootintegration"]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"ALTER TABLE {table} RENAME TO {table}_gone")
    try:
        # Each request in a savepoint of the test's transaction, rolled back: a route with no request
        # transaction (the sends, the Chatwoot routes that call out) fails its statement outside any block
        # of its own, which on PostgreSQL would abort the test's transaction (in production, autocommit:
        # it fails alone).
        statuses = {}
        for method, path, extra in _requests(session.instance_key, admin_key):
            if not path.startswith(("/account/", "/metrics")):
                with transaction.atomic():
                    statuses[path] = _send(caller, method, path, extra)
                    transaction.set_rollback(True)
    finally:
        with connection.cursor() as cursor:
            for table in tables:
                cursor.execute(f"ALTER TABLE {table}_gone RENAME TO {table}")
    failed = [path for path, status in statuses.items() if status >= 500]
    assert any(path.startswith(f"/instances/{session.instance_key}/") for path in failed), statuses
    assert any(path.startswith("/integrations/chatwoot/") for path in failed), statuses
    output = console.getvalue()
    assert "/instances/***/instance" in output and "Traceback" in output, output[-3000:]
    for secret in _secrets(session.instance_key, admin_key):
        assert secret not in output, (secret, output)


def test_every_handler_of_every_configured_logger_hides_secrets():
    """Nothing prints around the redaction: loggers with handlers of their own have it on each."""
    for name, logger in logging.Logger.manager.loggerDict.items():
        if not isinstance(logger, logging.Logger) or name.startswith(("_pytest", "pytest")):
            continue
        for handler in logger.handlers:
            if isinstance(handler, logging.NullHandler):  # prints nothing (celery's until it configures)
                continue
            assert any(isinstance(f, SecretRedaction) for f in handler.filters), (name, handler)


def test_the_redaction_keeps_where_a_secret_was_and_hides_what_it_was():
    assert redacted("Bad Request: /instances/AbC-_12/instance") == "Bad Request: /instances/***/instance"
    assert redacted("GET /ws?apiKey=ponte_abcdefgh_S3cr3t&x=1") == "GET /ws?apiKey=***&x=1"
    assert (
        redacted("/bonds/api/?format=csv&key=abc&locale=pt-BR")
        == "/bonds/api/?format=csv&key=***&locale=pt-BR"
    )
    assert redacted("{'HTTP_AUTHORIZATION': 'Bearer abc', 'HTTP_X_API_KEY': 'def'}") == (
        "{'HTTP_AUTHORIZATION': '***', 'HTTP_X_API_KEY': '***'}"
    )
    assert redacted("X-Hub-Signature-256: sha256=abc") == "X-Hub-Signature-256: ***"
    assert redacted("key ponte_abcdefgh_S3cr3t-x_y used") == "key ponte_abcdefgh_*** used"
    assert redacted("/account/verify/MQ/c1z-0123abc/") == "/account/verify/***/***/"
    assert redacted("/api/media/eyJ0.abc:sig") == "/api/media/***"
    assert redacted("/admin/webhooks/instancewebhookconfig/") == "/admin/webhooks/instancewebhookconfig/"


@pytest.mark.live
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("log_format", ["plain", "json"])
def test_a_web_process_prints_no_key_from_django_uvicorn_or_ponte(log_format):
    """The real process: uvicorn's own handlers (plain lines) or Ponte's (JSON) around Django's lines.
    uvicorn logs each WebSocket handshake with its query string, where browsers put their key."""
    web = WebServer({"PONTE_LOG_FORMAT": log_format}).start()
    try:
        assert web.request("PUT", f"/instances/{FAKE_INSTANCE_KEY}/instance", body={"x": 1})[0] == 404
        assert web.request("GET", f"/bonds/api/?key={FAKE_QUERY_KEY}")[0] == 200
        handshake = {
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version": "13",
        }
        web.request("GET", f"/ws?apiKey={FAKE_API_KEY}", headers=handshake)
    finally:
        web.stop()
    text = web.log.read_text(errors="replace")
    assert "/instances/***/instance" in text and "apiKey=***" in text, text[-3000:]
    for secret in (FAKE_INSTANCE_KEY, FAKE_QUERY_KEY, FAKE_API_KEY.rsplit("_", 1)[1]):
        assert secret not in text, (secret, text[-3000:])
