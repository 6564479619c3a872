"""Signatures of a delivery, computed over the exact bytes that are sent.

* `x-webhook-signature`: hex HMAC-SHA256 of the raw body, keyed by the secret's UTF-8 bytes (the
  gateway's own signature, which its receivers check).
* Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`), signed by the
  `standardwebhooks` package: HMAC-SHA256 of `"{id}.{timestamp}.{body}"`. Its key is the secret's UTF-8
  bytes, so a receiver verifies with
  `standardwebhooks.Webhook(secret.encode())` or `Webhook("whsec_" + base64(secret))`. A secret that is
  itself in the Standard Webhooks form (`whsec_<base64>`) is used decoded, so `Webhook(secret)` works as is.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from datetime import UTC, datetime

from standardwebhooks import Webhook

from core.timefmt import iso_millis

STANDARD_PREFIX = "whsec_"


def hex_signature(*, secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def standard_key(secret: str) -> bytes:
    """The HMAC key of the Standard Webhooks signature for a webhook's secret."""
    if secret.startswith(STANDARD_PREFIX):
        try:
            key = base64.b64decode(secret[len(STANDARD_PREFIX) :], validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if key:
            return key
    return secret.encode()


def standard_signature(*, secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    # The body is the UTF-8 JSON that is sent, so decoding it gives back the very bytes signed.
    sent_at = datetime.fromtimestamp(timestamp, tz=UTC)
    return Webhook(standard_key(secret)).sign(msg_id=msg_id, timestamp=sent_at, data=body.decode())


def delivery_headers(
    *, secret: str, msg_id: str, body: bytes, sent_at: datetime, previous_secret: str = ""
) -> dict[str, str]:
    """All headers of one attempt; a fresh timestamp and signature per attempt, the same id.

    `previous_secret`: the secret a rotation replaced, still in its overlap (webhooks.registered.rotation).
    The Standard Webhooks header then carries one signature per secret, the new one first, separated by a
    space (the spec's rotation form), so a receiver still on the old secret verifies too; the hex
    `x-webhook-signature` has room for one and uses the new secret."""
    timestamp = int(sent_at.timestamp())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Ponte-Webhooks/1.0",
        "x-webhook-id": msg_id,
        "x-webhook-timestamp": iso_millis(sent_at),
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
    }
    if secret:
        headers["x-webhook-signature"] = hex_signature(secret=secret, body=body)
        signatures = [
            standard_signature(secret=key, msg_id=msg_id, timestamp=timestamp, body=body)
            for key in (secret, previous_secret)
            if key
        ]
        headers["webhook-signature"] = " ".join(signatures)
    return headers
