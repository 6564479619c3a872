"""Django's PostgreSQL backend, its per-request health check made cheap (docs/decisions/0039).

With CONN_HEALTH_CHECKS, Django runs `SELECT 1` on a persistent connection before the first query of
every request and every Celery task or wake-up (`close_if_health_check_failed`): one more statement and
round trip each time (24 to 59 us of client CPU, 0.03 to 0.09 raw POST: bench/round_trips.py). What the
check is for is a connection the server dropped while it sat between two uses (a restart, a failover, a
backend terminated, an idle timeout): the server then writes its FATAL notice and closes the socket, so
the socket reads as ready. A connection whose socket has nothing to read, whose transaction state is
idle, and which psycopg has not seen closed was not dropped that way; for it the check is a poll of the
socket, no statement. Anything else (bytes waiting, a notice, an odd state) gets Django's own check,
`SELECT 1`, unchanged. A connection that failed during a request is still checked with `SELECT 1` after
it (Django's `close_if_unusable_or_obsolete`, which this leaves alone).
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg.pq import TransactionStatus


def socket_quiet(connection: object) -> bool:
    """Whether a psycopg connection is open, idle outside a transaction, and has nothing to read: no
    FATAL notice or end of stream from a server that dropped it."""
    try:
        if connection.closed or connection.info.transaction_status != TransactionStatus.IDLE:
            return False
        poller = select.poll()
        poller.register(connection.fileno(), select.POLLIN | select.POLLPRI)
        return not poller.poll(0)
    except (OSError, ValueError, base.Database.Error):  # a closed descriptor: not quiet, let Django look
        return False


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        if (
            self.connection is not None
            and self.health_check_enabled
            and not self.health_check_done
            and not self.pool
            and socket_quiet(self.connection)
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()
