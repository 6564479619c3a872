"""Comparing a signature or token a caller sent in a header with the one Ponte computed.

A header value is whatever the client chose: non-ASCII (`hmac.compare_digest` refuses a `str` with
non-ASCII characters, a TypeError that became a 500), empty, sent twice (joined by a comma), megabytes
long. Compared as bytes, in constant time, anything that is not the expected value is simply a mismatch.
"""

from __future__ import annotations

import hmac


def as_bytes(text: str) -> bytes:
    """`text` as UTF-8, lone surrogates included (a test client, unlike a WSGI server, can send them)."""
    return text.encode("utf-8", "surrogatepass")


def signature_matches(given: str | None, expected: str) -> bool:
    """Whether `given` (a header's value, as received) is exactly `expected`, compared as bytes with
    `hmac.compare_digest`. Never raises: a malformed value is a mismatch."""
    if not given or not expected:
        return False
    return hmac.compare_digest(as_bytes(given), as_bytes(expected))
