"""The small helpers the webhooks share: time formatting, the client-error rule, Standard Webhooks."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta, timezone

import standardwebhooks

from core.timefmt import iso_millis
from jobs.policy import is_client_error
from webhooks.outbox.policy import REGISTERED
from webhooks.signing import delivery_headers


def test_iso_millis_writes_utc_with_milliseconds_and_z_whatever_the_time_zone():
    moment = datetime(2026, 3, 10, 2, 30, 0, 123456, tzinfo=timezone(timedelta(hours=-3)))
    assert iso_millis(moment) == "2026-03-10T05:30:00.123Z"


def test_timeouts_and_throttles_are_not_client_errors_but_other_4xx_are():
    assert [is_client_error(code) for code in (400, 404, 408, 429, 500, None)] == [
        True,
        True,
        False,
        False,
        False,
        False,
    ]
    assert REGISTERED.outcome(status=408, error=None) == "retry"


def test_the_standard_webhooks_headers_verify_with_the_package_for_a_plain_or_whsec_secret():
    body = '{"text":"olá"}'.encode()
    sent_at = datetime.now(UTC)
    plain = delivery_headers(secret="s3cret", msg_id="msg_1", body=body, sent_at=sent_at)
    standardwebhooks.Webhook(b"s3cret").verify(body, plain)
    whsec = "whsec_" + base64.b64encode(b"key bytes").decode()
    headers = delivery_headers(secret=whsec, msg_id="msg_2", body=body, sent_at=sent_at)
    standardwebhooks.Webhook(whsec).verify(body, headers)
    assert headers["x-webhook-timestamp"] == iso_millis(sent_at)
