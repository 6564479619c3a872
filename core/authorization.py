"""The `Authorization` request header, read the same way wherever Ponte takes a bearer token (the bonds
API and MCP keys, the /metrics token)."""

from __future__ import annotations


def bearer_token(authorization: str) -> str | None:
    """The token of an `Authorization: Bearer <token>` value, or None for any other value.

    Auth schemes are case-insensitive (RFC 9110 §11.1), so `bearer` and `BEARER` are Bearer too; the
    whitespace between scheme and token may be more than the one space clients usually send.
    """
    parts = authorization.split(None, 1)
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None
    return parts[1].strip() or None
