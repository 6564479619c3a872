"""No outside call inside a database transaction (docs/decisions/0021).

An HTTP request made while a transaction is open holds the transaction, its row locks and a database
connection for as long as the other side takes to answer: a slow Graph API or Chatwoot then stalls every
request that waits for the same rows. Every outbound HTTP path of Ponte (net.transport's vetted pools,
the Graph API client, the bond sources) calls `outside_call_check` before it starts a request; with
`PONTE_REFUSE_OUTSIDE_CALLS_IN_TRANSACTION` on (the whole test suite, `tests/isolation.py`) a request
started inside a transaction raises `OutsideCallInTransaction` naming the call. Off by default in
production, where the check would turn a slow path into a failed one.

A test wrapped in Django's TestCase (pytest-django's `db` fixture) runs inside the test case's own atomic
blocks; those do not count, only the blocks the code under test opened do (core.transactions).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connections

from core.transactions import transaction_open

logger = logging.getLogger(__name__)


class OutsideCallInTransaction(RuntimeError):
    """An outbound HTTP request was about to start while a database transaction was open."""


def open_transaction_alias() -> str | None:
    """The alias of a connection of this thread with a transaction open by the code running, or None
    (a test case's own blocks do not count: core.transactions.transaction_open)."""
    for connection in connections.all(initialized_only=True):
        if transaction_open(connection.alias):
            return connection.alias
    return None


def outside_call_check(call: str, *args: object) -> None:
    """Refuse to start `call` (e.g. "POST https://graph.facebook.com/v21.0/123/messages"; formatted with
    `args` as a log message is, and only when refused: the webhook worker's hot path pays one setting
    read) inside a transaction, when the setting asks for it. Logged as well, so that a caller that
    records every failure as a failed attempt cannot hide the refusal from the test suite
    (tests/conftest.py)."""
    if not settings.PONTE_REFUSE_OUTSIDE_CALLS_IN_TRANSACTION:
        return
    alias = open_transaction_alias()
    if alias is None:
        return
    message = (
        f"{call % args if args else call} started inside a database transaction (connection {alias!r}): "
        "an outside call must run after commit (transaction.on_commit) or as a job, never while a "
        "transaction or a row lock is held"
    )
    logger.error("%s", message)
    raise OutsideCallInTransaction(message)
