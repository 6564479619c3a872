"""Instance keys: the credential of the instance interface (`/instances/<instance_key>/...`).

Stored like API keys (accounts.keys): a SHA-256 digest, and the first characters in clear to find the
row and to tell keys apart in lists; the key itself is shown once, when it is issued (session creation
or an explicit regeneration). Keys issued before digests (32 URL-safe characters) keep working: the
same rule gives their prefix.
"""

from __future__ import annotations

import secrets

from accounts.keys import digest_of, digests_match

PREFIX_LENGTH = 8
_MIN_LENGTH = 16


def instance_key_new() -> tuple[str, str, str]:
    """Return (plaintext, prefix, digest) for a new key (256 random bits, URL-safe)."""
    plaintext = secrets.token_urlsafe(32)
    return plaintext, plaintext[:PREFIX_LENGTH], digest_of(plaintext)


def instance_key_prefix(plaintext: str) -> str | None:
    """The lookup prefix of a presented key, or None when it cannot be one."""
    return plaintext[:PREFIX_LENGTH] if len(plaintext) >= _MIN_LENGTH else None


def instance_key_matches(digest: str, plaintext: str) -> bool:
    return bool(digest) and digests_match(digest, plaintext)


def instance_key_masked(prefix: str) -> str:
    return f"{prefix}…" if prefix else ""
