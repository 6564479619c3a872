"""A round: one piece of work that asks several kept lookups, such as one event handed to its sinks (the
outbox, the Chatwoot mirror, the bots: each keeps what it needs of a session per process, checked
against a version in the shared cache before use: webhooks.lookups).

Inside a round, those versions are read from the shared cache once, all at once (one MGET), instead of
one GET per lookup: the round sees the versions as they were when it began, as a round that read the
database at its start would see the rows. A round inside a round is the outer one. Per thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_local = threading.local()


class Round:
    """What one round has read: {cache key: value}, filled by the first lookup that checks."""

    __slots__ = ("read",)

    def __init__(self) -> None:
        self.read: dict[str, object] | None = None


@contextmanager
def one_round() -> Iterator[Round]:
    current = getattr(_local, "round", None)
    if current is not None:
        yield current
        return
    _local.round = current = Round()
    try:
        yield current
    finally:
        _local.round = None


def current_round() -> Round | None:
    return getattr(_local, "round", None)
