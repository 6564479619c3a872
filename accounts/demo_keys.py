"""The demo account's API keys, printed at the end of `make run`'s start-up and by `make keys`.

Keys are stored as digests, so the demo keeps their plaintext in `PONTE_VAR_DIR/demo-keys-<db>.json`
(mode 0600, one file per database) to print them again on the next run. Only the `demo` account's keys
are written there, and `make run` is the only thing that loads demo data: never run it against
production data.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction

from accounts.keys import digests_match, prefix_of
from accounts.models import Account, ApiKey
from accounts.services import api_key_create, api_key_revoke

DEMO_KEY_ACCOUNT = "demo"
DEMO_KEY_NAME = "demo-{role}"


def _store() -> Path:
    """One file per database, so a test run on its own database never replaces a developer's keys."""
    params = connection.settings_dict
    database = hashlib.sha256(
        f"{params['ENGINE']}|{params.get('HOST')}|{params['NAME']}".encode()
    ).hexdigest()
    return Path(settings.VAR_DIR) / f"demo-keys-{database[:12]}.json"


def _stored() -> dict[str, str]:
    try:
        return json.loads(_store().read_text())
    except (OSError, ValueError):
        return {}


def _still_valid(account: Account, role: str, plaintext: str) -> bool:
    prefix = prefix_of(plaintext)
    key = ApiKey.objects.filter(account=account, prefix=prefix, role=role).first() if prefix else None
    return bool(key and key.status == "active" and digests_match(key.digest, plaintext))


def _save(keys: dict[str, str]) -> None:
    store = _store()
    descriptor = os.open(store, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(keys, handle)


@transaction.atomic
def demo_keys(*, fresh: bool = False) -> dict[str, str]:
    """The demo account's keys by role (admin, operator, viewer), in clear.

    The stored ones when they all still work; otherwise, or with `fresh`, the old demo keys are revoked
    and new ones issued.
    """
    account = Account.objects.get(name=DEMO_KEY_ACCOUNT)
    stored = _stored()
    if not fresh and all(_still_valid(account, role, stored.get(role, "")) for role in ApiKey.Role.values):
        return {role: stored[role] for role in ApiKey.Role.values}
    for key in account.api_keys.filter(name__startswith="demo-", revoked_at__isnull=True):
        api_key_revoke(key=key)
    issued = {
        role: api_key_create(account=account, role=role, name=DEMO_KEY_NAME.format(role=role))[1]
        for role in ApiKey.Role.values
    }
    _save(issued)  # a rolled-back issue leaves keys that fail _still_valid: the next call reissues
    return issued
