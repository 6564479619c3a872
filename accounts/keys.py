"""Key material: how a plaintext key looks, and how it is hashed and compared.

A key reads `ponte_<prefix>_<secret>`: the prefix (8 characters) is stored in clear to find the row
and shown in lists; the secret never is. Keys carry 240 random bits, so one SHA-256 is enough (no slow
hash needed, unlike passwords) and keeps every request cheap.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string

KEY_PREFIX = "ponte_"
_ALPHABET = string.ascii_lowercase + string.digits
_PREFIX_LENGTH = 8
_PREFIX_CHARACTERS = frozenset(_ALPHABET)


def digest_of(plaintext: str) -> str:
    # "surrogatepass": a presented key holding a lone surrogate simply does not match.
    return hashlib.sha256(plaintext.encode("utf-8", "surrogatepass")).hexdigest()


def key_material_new() -> tuple[str, str, str]:
    """Return (plaintext, prefix, digest) for a new key."""
    prefix = "".join(secrets.choice(_ALPHABET) for _ in range(_PREFIX_LENGTH))
    plaintext = f"{KEY_PREFIX}{prefix}_{secrets.token_urlsafe(30)}"
    return plaintext, prefix, digest_of(plaintext)


def prefix_of(plaintext: str) -> str | None:
    """The lookup prefix of a presented key, or None when it is not shaped like a Ponte key."""
    if not plaintext.startswith(KEY_PREFIX):
        return None
    prefix, _, secret = plaintext[len(KEY_PREFIX) :].partition("_")
    # Only the alphabet keys are made of: anything else (a NUL, say) must not reach a database lookup.
    if len(prefix) != _PREFIX_LENGTH or not secret or not set(prefix) <= _PREFIX_CHARACTERS:
        return None
    return prefix


def digests_match(stored: str, plaintext: str) -> bool:
    return hmac.compare_digest(stored, digest_of(plaintext))
