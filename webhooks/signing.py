"""Signatures of a delivery, computed over the exact bytes that are sent.

* `x-webhook-signature`: hex HMAC-SHA256 of the raw body, keyed by the secret's UTF-8 bytes (seed 002).
* Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`): HMAC-SHA256 of
  `"{id}.{timestamp}.{body}"`. Its key is the secret's UTF-8 bytes, so a receiver verifies with
  `standardwebhooks.Webhook(secret.encode())` or `Webhook("whsec_" + base64(secret))`. A secret that is
  itself in the Standard Webhooks form (`whsec_<base64>`) is used decoded, so `Webhook(secret)` works as is.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from datetime import datetime

STANDARD_PREFIX = "whsec_"


def hex_signature(*, secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def standard_key(secret: str) -> bytes:
    """The HMAC key of the Standard Webhooks signature for a webhook's secret."""
    if secret.startswith(STANDARD_PREFIX):
        try:
            return base64.b64decode(secret[len(STANDARD_PREFIX) :], validate=True)
        except (binascii.Error, ValueError):
            pass
    return secret.encode()


def standard_signature(*, secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(standard_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def delivery_headers(*, secret: str, msg_id: str, body: bytes, sent_at: datetime) -> dict[str, str]:
    """All headers of one attempt; a fresh timestamp and signature per attempt, the same id."""
    timestamp = int(sent_at.timestamp())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Ponte-Webhooks/1.0",
        "x-webhook-id": msg_id,
        "x-webhook-timestamp": sent_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
    }
    if secret:
        headers["x-webhook-signature"] = hex_signature(secret=secret, body=body)
        headers["webhook-signature"] = standard_signature(
            secret=secret, msg_id=msg_id, timestamp=timestamp, body=body
        )
    return headers
