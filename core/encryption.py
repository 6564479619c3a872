"""Encryption of secrets Ponte must read back (webhook secrets, channel credentials) at rest.

Values are Fernet tokens (AES-128-CBC with HMAC-SHA256, from `cryptography`) under the keys of
`PONTE_SECRET_KEYS`: the first key encrypts, every key decrypts, so keys rotate by putting a new one
first, re-encrypting (`manage.py rotate_secret_keys`) and then dropping the old one. Without the keys
the encrypted values are lost: back them up apart from the database.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


class DecryptionFailed(Exception):
    """None of PONTE_SECRET_KEYS opens a stored value: a key was dropped too early, or lost."""


def development_key(secret_key: str) -> str:
    """A Fernet key derived from SECRET_KEY, for DEBUG runs that set no PONTE_SECRET_KEYS."""
    digest = hashlib.sha256(b"ponte secret keys\0" + secret_key.encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()


def key_problem(key: str) -> str | None:
    """Why `key` is not a Fernet key (32 bytes in URL-safe base64), or None when it is one."""
    try:
        raw = base64.urlsafe_b64decode(key.encode())
    except (binascii.Error, ValueError):
        return "not URL-safe base64"
    return None if len(raw) == 32 else f"{len(raw)} bytes instead of 32"


@lru_cache(maxsize=4)
def _keyring(keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([Fernet(key) for key in keys])


def keyring() -> MultiFernet:
    return _keyring(tuple(settings.PONTE_SECRET_KEYS))


def encrypt(plaintext: str) -> str:
    return keyring().encrypt(plaintext.encode()).decode()


@lru_cache(maxsize=4096)
def _decrypt(keys: tuple[str, ...], token: str) -> str:
    # Cached: the delivery worker reads the same webhook's secret for every delivery it signs.
    return _keyring(keys).decrypt(token.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return _decrypt(tuple(settings.PONTE_SECRET_KEYS), token)
    except InvalidToken:
        raise DecryptionFailed(
            "A stored secret cannot be decrypted with any of PONTE_SECRET_KEYS; restore the key it was "
            "encrypted with (see docs/operations.md, 'Secrets at rest')."
        ) from None


def encrypted_under_first_key(token: str) -> bool:
    """Whether `token` already opens with the first (encrypting) key alone."""
    try:
        Fernet(settings.PONTE_SECRET_KEYS[0]).decrypt(token.encode())
    except InvalidToken:
        return False
    return True
