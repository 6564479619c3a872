"""Rows for the renderers in tests: the renderers take rows as `replies.bond_rows` gives them, the
offer's id first; fixtures list the published fields (and the JSON-only ones) without it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bonds.rendering import JSON_FIELDS


def with_ids(rows: Iterable[Sequence[Any]], first: int = 1) -> list[tuple]:
    """Each row with an id before it (1, 2, ...), as bond_rows gives them; the fields a fixture leaves
    out at the end (added to the row after it was written) are null."""
    padded = len(JSON_FIELDS) - 1
    return [(number, *row, *[None] * (padded - len(row))) for number, row in enumerate(rows, start=first)]
