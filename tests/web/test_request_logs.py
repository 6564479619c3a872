"""Log lines and request ids: one line per request and per delivery attempt, JSON with
PONTE_LOG_FORMAT=json, the request id returned as X-Request-Id and carried into the deliveries the
request causes; never a key, a secret or a message body. And the delivery counters and label hygiene
of GET /metrics, seen from the web process while a real worker delivers."""

from __future__ import annotations

import json
import logging
import re
import uuid

import pytest

from core.logs import JsonFormatter, RequestIdFilter, request_id_var
from core.observe import loggable_path, request_id_for
from tests.web.observe_support import WebServer, json_lines, samples, value
from tests.webhooks.support import LOOPBACK, Receiver, Worker, purge_queues, wait_for
from webhooks.models import Delivery
from webhooks.registered.services import webhook_create

HEX_ID = re.compile(r"[0-9a-f]{32}")


def _scope(client: str, request_id: bytes | None) -> dict:
    headers = [(b"host", b"x")] + ([(b"x-request-id", request_id)] if request_id is not None else [])
    return {"type": "http", "client": (client, 5000), "headers": headers}


def test_an_x_request_id_is_kept_only_when_a_trusted_proxy_sends_a_sane_one(settings):
    settings.PONTE_TRUSTED_PROXIES = ["10.0.0.0/8"]
    assert request_id_for(_scope("10.1.2.3", b"req-42.abc")) == "req-42.abc"
    # From anyone else, or too long, or with odd characters: a new one.
    for client, given in [
        ("203.0.113.9", b"req-42.abc"),
        ("10.1.2.3", b"x" * 65),
        ("10.1.2.3", b"bad id\r\nInjected: 1"),
        ("10.1.2.3", b""),
        ("10.1.2.3", None),
    ]:
        assert HEX_ID.fullmatch(request_id_for(_scope(client, given))), (client, given)
    settings.PONTE_TRUSTED_PROXIES = []
    assert request_id_for(_scope("10.1.2.3", b"req-42.abc")) != "req-42.abc"


def test_logged_paths_hide_instance_keys_and_account_link_tokens():
    assert loggable_path("/instances/ik_abc123SECRET/instance") == "/instances/***/instance"
    assert loggable_path("/account/reset/MQ/c1z-0123abc/") == "/account/reset/***/***/"
    assert loggable_path("/api/sessions/5f0c/connect") == "/api/sessions/5f0c/connect"


def test_a_json_log_line_has_time_level_logger_message_request_id_and_its_fields():
    record = logging.LogRecord("ponte.request", logging.INFO, __file__, 1, "GET %s", ("/healthz",), None)
    record.fields = {"status": 200, "duration_ms": 1.5}
    token = request_id_var.set("rid-1")
    try:
        RequestIdFilter().filter(record)
    finally:
        request_id_var.reset(token)
    line = json.loads(JsonFormatter().format(record))
    assert set(line) == {"time", "level", "logger", "message", "request_id", "status", "duration_ms"}
    assert (line["level"], line["logger"], line["message"]) == ("INFO", "ponte.request", "GET /healthz")
    assert (line["request_id"], line["status"]) == ("rid-1", 200)
    assert line["time"].endswith("+00:00")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_message_sent_through_the_web_carries_its_request_id_into_the_delivery_attempt_log_line(
    admin_key, account, settings
):
    settings.PONTE_WEBHOOK_ALLOW_NETWORKS = [LOOPBACK]
    receiver = Receiver().start()
    token_in_url = "tok" + uuid.uuid4().hex
    body_text = "a private body " + uuid.uuid4().hex
    web = WebServer({"PONTE_LOG_FORMAT": "json", "PONTE_TRUSTED_PROXIES": "127.0.0.1/32"}).start()
    purge_queues()
    worker = Worker(env={"PONTE_LOG_FORMAT": "json"}).start()
    try:
        keyed = {"X-API-Key": admin_key}
        status, _h, created = web.request("POST", "/api/sessions", body={"name": "support"}, headers=keyed)
        assert status == 201, created
        session_id = json.loads(created)["id"]
        assert web.request("POST", f"/api/sessions/{session_id}/connect", headers=keyed)[0] == 200
        scan = f"/api/sandbox/sessions/{session_id}/scan"
        assert web.request("POST", scan, body={"phone": "5511999990001"}, headers=keyed)[0] == 200
        webhook = webhook_create(
            account=account,
            session_id=session_id,
            url=f"{receiver.url}?token={token_in_url}",
            events=["message"],
            secret="whsec-topsecret",
        )
        before = web.scrape()

        request_id = "trace-" + uuid.uuid4().hex[:12]
        status, headers, sent = web.request(
            "POST",
            "/api/messages/send",
            body={"sessionId": session_id, "to": "5511988887777", "text": body_text},
            headers={**keyed, "X-Request-Id": request_id},
        )
        assert status in (200, 201), sent
        assert headers["x-request-id"] == request_id
        delivery = wait_for(
            lambda: Delivery.objects.filter(webhook=webhook, status="delivered").first(), what="the delivery"
        )
        assert delivery.request_id == request_id
        wait_for(lambda: "delivery_attempt" in worker.log.read_text(), what="the attempt's log line")

        # The web's line for the request and the worker's line for the attempt carry the same id.
        web_lines = json_lines(web.log_lines())
        (request_line,) = [
            line
            for line in web_lines
            if line.get("event") == "request" and line["path"] == "/api/messages/send"
        ]
        assert request_line["request_id"] == request_id
        assert (request_line["method"], request_line["status"], request_line["interface"]) == (
            "POST",
            status,
            "messaging",
        )
        assert isinstance(request_line["duration_ms"], float)
        attempts = [
            line
            for line in json_lines(worker.log.read_text().splitlines())
            if line.get("event") == "delivery_attempt"
        ]
        (attempt,) = [line for line in attempts if line["delivery_id"] == delivery.pk]
        assert attempt["request_id"] == request_id
        assert (attempt["outcome"], attempt["status"], attempt["kind"]) == ("delivered", 200, "registered")
        assert attempt["target_host"] == "127.0.0.1"
        # The task the request's hint started logs under the same id: a wake-up popped from its Redis
        # list (jobs.wakeups) or, without Redis, a Celery task.
        tasks = [
            line
            for line in json_lines(worker.log.read_text().splitlines())
            if line["logger"] in ("celery.app.trace", "jobs.wakeups")
            and "webhooks.deliver" in line["message"]
        ]
        assert request_id in {line["request_id"] for line in tasks}

        # uvicorn's own lines are JSON too.
        assert any(line["logger"].startswith("uvicorn") for line in web_lines)
        assert not [line for line in web_lines if line["logger"] == "uvicorn.access"]  # one line each

        # Never a key, a secret, a message body or a customer's URL token in any line.
        everything = web.log.read_text() + worker.log.read_text()
        for secret in (admin_key, body_text, "whsec-topsecret", token_in_url):
            assert secret not in everything

        # The web process's scrape counts the worker's attempt; no label carries an id, a key or a URL.
        after = web.scrape()
        delivered = {"kind": "registered", "outcome": "delivered"}
        assert (
            value(after, "ponte_webhook_deliveries_total", **delivered)
            - value(before, "ponte_webhook_deliveries_total", **delivered)
            >= 1
        )
        assert value(after, "ponte_webhook_delivery_seconds_count", kind="registered") >= 1
        assert value(after, "ponte_engine_sessions", driver="sandbox", status="connected") >= 1
        _assert_clean_labels(after, forbidden=[admin_key, session_id, webhook.id, receiver.url, token_in_url])
    finally:
        worker.stop()
        web.stop()
        receiver.stop()


ALLOWED_LABELS = {
    "interface": {"bonds", "messaging", "webhooks", "instances", "mcp", "account", "admin", "other"},
    "method": {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"},
    "kind": {"registered", "instance"},
    "outcome": {"delivered", "failed", "dead", "client_error"},
    "driver": {
        "sandbox",
        "whatsapp",
        "whatsapp_cloud",
        "messenger",
        "instagram",
        "remote",
        "official",
        "custom",
    },
    "status": {"disconnected", "qr", "connected", "other"},
    "product": {"cdb", "lci", "lca", "cri", "cra", "deb", "tpf", "td", "lf", "misc"},
}


def _assert_clean_labels(text: str, *, forbidden: list[str]) -> None:
    for (name, labels), _value in samples(text).items():
        for label, label_value in labels:
            if label == "le":
                continue
            if label == "status" and name.startswith("ponte_http_"):
                assert re.fullmatch(r"[1-5]\d\d", label_value), (name, label_value)
                continue
            assert label_value in ALLOWED_LABELS[label], (name, label, label_value)
    for secret in forbidden:
        assert secret not in text
