"""JSON that an outside party signed (Meta's channel webhooks, Chatwoot's webhooks, the demo receiver),
made storable rather than refused.

The keyed interfaces refuse what cannot be stored (core.badinput: 400), and the caller fixes its
request. A platform that signs what it posts cannot fix one field: Meta retries a whole batch on any
5xx, so one odd event would take every good one of its batch down with it. Here the odd parts are
cleaned, each cleaning is logged (one line per body), and the rest goes on:

* NUL characters are removed, and lone surrogates replaced by U+FFFD, in keys and values (PostgreSQL
  text cannot hold NUL; a lone surrogate cannot be encoded as UTF-8);
* integers outside a signed 64-bit column's range are clamped to its bounds (parsed without Python's
  digit limit, so a 10,000-digit number is clamped, not an error);
* non-finite numbers (`NaN`, `Infinity`, `1e400`) are dropped: JSON columns cannot hold them;
* objects and arrays nested deeper than PONTE_MAX_JSON_DEPTH are dropped.

A body the decoder cannot read at all (not JSON, not UTF-8, nested past the interpreter's limit) raises
`ValueError`: there is nothing to keep of it.
"""

from __future__ import annotations

import json
import logging
import math
import re
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

INT_MIN = -(2**63)
INT_MAX = 2**63 - 1
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_NOTES_LOGGED = 5


class _Dropped:
    """A value removed from the body (its key or list item is left out)."""


_DROPPED = _Dropped()


def _constant(name: str) -> _Dropped:  # NaN, Infinity, -Infinity
    return _DROPPED


def _text(value: str) -> str:
    return _UNSTORABLE.sub(lambda m: "" if m.group() == "\x00" else "\ufffd", value)


class _Cleaner:
    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self.notes: list[str] = []

    def number(self, text: str) -> int:
        """The decoder's integers, clamped as they are read: a number too long to be in range is clamped
        from its sign, without converting the digits."""
        if len(text.lstrip("-")) > 19:
            value = INT_MIN if text.startswith("-") else INT_MAX
        else:
            value = int(text)
            if INT_MIN <= value <= INT_MAX:
                return value
            value = max(INT_MIN, min(INT_MAX, value))
        self.notes.append(f"integer {text[:24]}{'…' if len(text) > 24 else ''} clamped")
        return value

    def clean(self, value: Any, depth: int, where: str) -> Any:
        if isinstance(value, str):
            cleaned = _text(value)
            if cleaned != value:
                self.notes.append(f"{where}: NUL or lone surrogate removed")
            return cleaned
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            if not INT_MIN <= value <= INT_MAX:
                self.notes.append(f"{where}: integer out of range clamped")
                return max(INT_MIN, min(INT_MAX, value))
            return value
        if isinstance(value, float) or value is _DROPPED:
            if value is _DROPPED or not math.isfinite(value):
                self.notes.append(f"{where}: non-finite number dropped")
                return _DROPPED
            return value
        if isinstance(value, dict | list):
            if depth > self.max_depth:
                self.notes.append(f"{where}: nested deeper than {self.max_depth} levels, dropped")
                return _DROPPED
            if isinstance(value, list):
                items = (self.clean(v, depth + 1, f"{where}[{i}]"[:200]) for i, v in enumerate(value))
                return [v for v in items if v is not _DROPPED]
            cleaned_dict = {}
            for key, item in value.items():
                name = _text(key)
                if name != key:
                    self.notes.append(f"{where}: a field name's NUL or lone surrogate removed")
                # The path names the field in the log line: bounded, whatever the sender's key.
                item = self.clean(item, depth + 1, f"{where}.{name[:40]!r}"[:200])
                if item is not _DROPPED:
                    cleaned_dict[name] = item
            return cleaned_dict
        return value


def _cleaned(cleaner: _Cleaner, value: Any, source: str) -> Any:
    cleaned = cleaner.clean(value, 1, "body")
    if cleaner.notes:
        shown = "; ".join(cleaner.notes[:_NOTES_LOGGED])
        more = len(cleaner.notes) - _NOTES_LOGGED
        logger.warning("%s: signed body cleaned: %s%s", source, shown, f" (+{more} more)" if more > 0 else "")
    return None if cleaned is _DROPPED else cleaned


def signed_json_clean(value: Any, *, source: str) -> Any:
    """`value` (parsed JSON) with the unstorable parts cleaned as the module says; logged once."""
    return _cleaned(_Cleaner(settings.PONTE_MAX_JSON_DEPTH), value, source)


def signed_json_load(raw: bytes, *, source: str) -> Any:
    """Parse a signed body and clean it (see the module doc); ValueError when it is not readable JSON."""
    cleaner = _Cleaner(settings.PONTE_MAX_JSON_DEPTH)
    try:
        value = json.loads(raw, parse_int=cleaner.number, parse_constant=_constant)
    except RecursionError:
        raise ValueError("JSON nested past what the decoder reads") from None
    return _cleaned(cleaner, value, source)


def signed_json_decode(raw: bytes) -> Any:
    """Only decode a signed body, at the C decoder's speed, for a caller that stores it to clean later
    (`signed_json_load` on what it stored, e.g. parts of a large body): integers past a 64-bit column are
    clamped as they are read (Python's digit limit would refuse them otherwise), everything else is kept
    as decoded (`NaN` stays a float and is written back as `NaN`). ValueError when it is not readable."""
    cleaner = _Cleaner(settings.PONTE_MAX_JSON_DEPTH)
    try:
        return json.loads(raw, parse_int=cleaner.number)
    except RecursionError:
        raise ValueError("JSON nested past what the decoder reads") from None
