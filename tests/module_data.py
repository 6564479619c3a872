"""Rows a module's tests only read, loaded once for the module instead of once per test.

The rows are written inside a transaction opened for the module; each test's own transaction (the `db`
fixture's) is a savepoint inside it, rolled back after the test as usual, so what one test writes never
reaches the next. The module's transaction is rolled back when its last test has run, so the next
module starts from the empty database it would have had. Only for tests on the `db` fixture: a
transactional test (live_server, transactional_db) would commit and flush through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import transaction


@contextmanager
def loaded_for_the_module(django_db_blocker, load: Callable[[], None]) -> Iterator[None]:
    with django_db_blocker.unblock():
        module_transaction = transaction.atomic()
        module_transaction.__enter__()
        try:
            load()
        except BaseException:
            transaction.set_rollback(True)
            module_transaction.__exit__(None, None, None)
            raise
    try:
        yield
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            module_transaction.__exit__(None, None, None)
