"""Reads on accounts and keys."""

from __future__ import annotations

from accounts.key_limits import key_covers
from accounts.models import Account, ApiKey


def api_key_list(*, account: Account, by: ApiKey | None = None) -> list[ApiKey]:
    """The account's keys, newest first; when a key asks (`by`), only those no wider than itself
    (accounts.key_limits). An account holds few keys, so they are filtered here rather than in SQL,
    where "each range inside one of these ranges" has no portable form."""
    keys = list(account.api_keys.all())
    return keys if by is None else [key for key in keys if key_covers(by, key)]
