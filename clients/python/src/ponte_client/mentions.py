"""The `mentions` and `mentionAll` fields of the send and poll bodies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def mentioning(body: dict[str, Any], mentions: Sequence[str], mention_all: bool) -> dict[str, Any]:
    """`mentions` (numbers or JIDs) and `mentionAll` (every participant of a group), when given."""
    if mentions:
        body["mentions"] = list(mentions)
    if mention_all:
        body["mentionAll"] = True
    return body
