"""Whether a transaction is open, and views that run outside the request's transaction (ATOMIC_REQUESTS).

Every request runs in one transaction (config/settings/core.py), which is right for views that only
write rows. A view whose service calls the outside world (Chatwoot, the Graph API) would hold that
transaction, and every row lock taken before the call, for as long as the other side takes to answer;
such a view opts out here, and its service commits its own writes before or after the call
(net.guard refuses an outside call inside a transaction in the test suite; docs/decisions/0021).
"""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, transaction


def transaction_open(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether the code running holds a transaction open on this thread's connection `using`.

    The atomic blocks a test case opens around each test (Django's TestCase, pytest-django's `db`
    fixture) do not count: Django marks them (`_from_testcase`, the mark its own `durable=True` check
    reads), so a test sees what production sees: a send, say, takes its own path
    (messaging.services.messages.message_send) and not the one nested in a caller's transaction."""
    connection = connections[using]
    return connection.in_atomic_block and any(
        not getattr(block, "_from_testcase", False) for block in connection.atomic_blocks
    )


class NoRequestTransaction:
    """For APIViews (first in the bases): the request runs in no transaction; the service opens its own
    short ones around its writes, never around an outside call."""

    #: Read by the error handler (core.errors): nothing of the request's to roll back.
    request_transaction = False

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        return transaction.non_atomic_requests(super().as_view(**initkwargs))  # type: ignore[misc]
