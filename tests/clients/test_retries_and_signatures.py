"""Retries honour Retry-After (a real local HTTP server answering 429 then 200), and verify_webhook
checks what Ponte's own signer produces."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler

import pytest
from ponte_client import Client, RateLimitError, RetryPolicy, WebhookVerificationError, verify_webhook

from tests.localhttp import base_url, serving
from webhooks.signing import delivery_headers


def _script(*replies: tuple[int, dict[str, str]]):
    """A handler answering each GET with the next scripted (status, headers), recording arrival times."""
    arrivals: list[float] = []
    queue = list(replies)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            arrivals.append(time.monotonic())
            status, headers = queue.pop(0) if len(queue) > 1 else queue[0]
            body = json.dumps(
                {"data": [], "meta": {"total": 0, "page": 1, "limit": 20, "totalPages": 0}}
                if status == 200
                else {
                    "statusCode": status,
                    "error": "TOO_MANY_REQUESTS",
                    "message": "Slow down.",
                    "retryAfter": 1,
                }
            ).encode()
            self.send_response(status)
            for name, value in {**headers, "Content-Type": "application/json"}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    return Handler, arrivals


def test_a_429_is_retried_after_the_servers_retry_after() -> None:
    handler, arrivals = _script((429, {"Retry-After": "1"}), (200, {}))
    with serving(handler) as server, Client(base_url=base_url(server), api_key="k") as client:
        assert client.sessions.list().total == 0
    assert len(arrivals) == 2 and arrivals[1] - arrivals[0] >= 0.95


def test_retries_run_out_into_a_typed_rate_limit_error() -> None:
    handler, arrivals = _script((429, {"Retry-After": "0"}))
    policy = RetryPolicy(max_retries=2)
    with (
        serving(handler) as server,
        Client(base_url=base_url(server), api_key="k", retry=policy) as client,
        pytest.raises(RateLimitError) as caught,
    ):
        client.sessions.list()
    assert len(arrivals) == 3
    error = caught.value
    assert (error.statusCode, error.error, error.message, error.retry_after) == (
        429,
        "TOO_MANY_REQUESTS",
        "Slow down.",
        0,
    )


def test_verify_webhook_accepts_ponte_signatures_and_refuses_tampering() -> None:
    body = json.dumps({"event": "message", "data": {"text": "oi"}}).encode()
    headers = delivery_headers(secret="s3cret", msg_id="msg_1", body=body, sent_at=datetime.now(UTC))
    verify_webhook(headers, body, "s3cret")  # Standard Webhooks headers
    legacy = {"X-Webhook-Signature": headers["x-webhook-signature"]}
    verify_webhook(legacy, body, "s3cret")  # the hex signature alone
    with pytest.raises(WebhookVerificationError):
        verify_webhook(headers, body + b" ", "s3cret")
    with pytest.raises(WebhookVerificationError):
        verify_webhook(legacy, body, "other")
    old = delivery_headers(
        secret="s3cret", msg_id="msg_1", body=body, sent_at=datetime.now(UTC) - timedelta(hours=1)
    )
    with pytest.raises(WebhookVerificationError, match="too old"):
        verify_webhook(old, body, "s3cret")
