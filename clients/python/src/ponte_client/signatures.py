"""Verifying Ponte's webhook deliveries in a receiver."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from collections.abc import Mapping

from ponte_client.errors import PonteError

DEFAULT_TOLERANCE = 300  # seconds between the delivery's webhook-timestamp and now


class WebhookVerificationError(PonteError):
    def __init__(self, message: str) -> None:
        super().__init__(400, "INVALID_SIGNATURE", message)


def _standard_key(secret: str) -> bytes:
    if secret.startswith("whsec_"):
        try:
            return base64.b64decode(secret[len("whsec_") :], validate=True)
        except (binascii.Error, ValueError):
            pass
    return secret.encode()


def verify_webhook(
    headers: Mapping[str, str], body: bytes | str, secret: str, *, tolerance: int = DEFAULT_TOLERANCE
) -> None:
    """Check a delivery's signature over the raw body; raise WebhookVerificationError if it is wrong.

    Accepts the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`; the
    timestamp must be within `tolerance` seconds) or, without them, `x-webhook-signature` (hex HMAC-SHA256
    of the body). Header names are matched case-insensitively. Pass the body exactly as received.
    """
    raw = body.encode() if isinstance(body, str) else body
    lowered = {name.lower(): value for name, value in headers.items()}
    if "webhook-signature" in lowered:
        _verify_standard(lowered, raw, secret, tolerance)
        return
    given = lowered.get("x-webhook-signature")
    if not given:
        raise WebhookVerificationError("No webhook-signature or x-webhook-signature header.")
    expected = hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.strip().lower(), expected):
        raise WebhookVerificationError("x-webhook-signature does not match the body.")


def _verify_standard(headers: dict[str, str], raw: bytes, secret: str, tolerance: int) -> None:
    msg_id, stamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    try:
        timestamp = int(stamp)
    except ValueError:
        raise WebhookVerificationError("webhook-timestamp is missing or not a number.") from None
    if abs(time.time() - timestamp) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is too old or too far in the future.")
    signed = f"{msg_id}.{timestamp}.".encode() + raw
    expected = base64.b64encode(hmac.new(_standard_key(secret), signed, hashlib.sha256).digest()).decode()
    for candidate in headers["webhook-signature"].split():
        version, _, signature = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return
    raise WebhookVerificationError("webhook-signature does not match the body.")
