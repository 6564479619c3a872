"""Chatwoot's webhook signatures: Chatwoot 4.11+ (account webhooks) and 4.13+ (API inboxes) sign each
POST with the webhook's secret, which the API returns when the webhook is set.

Headers: `X-Chatwoot-Signature: sha256=<hex>` and `X-Chatwoot-Timestamp` (Unix seconds); the signature
is HMAC-SHA256 with the secret over `"{timestamp}.{raw body}"`. When Ponte knows an integration's
secret, a request without a valid signature is refused, and so is one whose timestamp is more than
`MAX_SKEW_SECONDS` away from now: a captured request cannot be replayed later, since its timestamp is
signed. With no secret known (older Chatwoot, or a webhook pasted by hand), the unguessable token in the
receiving URL stays the only credential.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from core.signatures import as_bytes, signature_matches

SIGNATURE_HEADER = "X-Chatwoot-Signature"
TIMESTAMP_HEADER = "X-Chatwoot-Timestamp"
MAX_SKEW_SECONDS = 300


def signature_of(secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), as_bytes(timestamp) + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def signature_valid(secret: str, timestamp: str | None, body: bytes, signature: str | None) -> bool:
    """Whether `signature` is Chatwoot's signature of `body` at `timestamp` (compared as bytes in constant
    time: a malformed header, non-ASCII included, is a mismatch)."""
    if not timestamp or not signature:
        return False
    return signature_matches(signature.strip(), signature_of(secret, timestamp, body))


def timestamp_fresh(timestamp: str | None, now: float | None = None) -> bool:
    """Whether `timestamp` (Unix seconds, as Chatwoot sends it) is within MAX_SKEW_SECONDS of now."""
    text = (timestamp or "").strip()
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        return False
    current = time.time() if now is None else now
    return abs(current - int(text)) <= MAX_SKEW_SECONDS
