"""A registered webhook's `filter`: conditions on the body it would receive, checked on write and
evaluated by emit() before a delivery is written (an event that does not match gets no delivery).

A filter is an object of conditions, all of which must hold, each keyed by a dotted path into the
delivered body (`data.fromMe`, `data.type`, `event`):

- a plain value: the body's value there equals it (`{"data.fromMe": false}`);
- an object of operators: `$eq`, `$ne`, `$in`, `$nin` (a list) and `$exists` (true or false), e.g.
  `{"data.type": {"$in": ["image", "video"]}}`.

Values are JSON scalars (string, number, boolean, null). Equality is JSON's, not Python's: `false` never
equals `0`. A path that is absent equals nothing (so `$ne` and `$nin` hold there, like MongoDB's and
Convoy's filters).
"""

from __future__ import annotations

from typing import Any

from core.errors import ValidationFailed

MAX_CONDITIONS = 20
MAX_PATH_LENGTH = 200
MAX_LIST_VALUES = 100
OPERATORS = ("$eq", "$ne", "$in", "$nin", "$exists")
_MISSING = object()


def _problem(text: str) -> ValidationFailed:
    return ValidationFailed(f"filter: {text}")


def _scalar_clean(path: str, value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise _problem(f"{path}: values must be strings, numbers, booleans or null")


def _operators_clean(path: str, operators: dict[str, Any]) -> dict[str, Any]:
    if not operators:
        raise _problem(f"{path}: name at least one operator ({', '.join(OPERATORS)})")
    cleaned: dict[str, Any] = {}
    for name, value in operators.items():
        if name not in OPERATORS:
            raise _problem(f"{path}: unknown operator {name!r}; use {', '.join(OPERATORS)}")
        if name == "$exists":
            if not isinstance(value, bool):
                raise _problem(f"{path}: $exists takes true or false")
            cleaned[name] = value
        elif name in ("$in", "$nin"):
            if not isinstance(value, list) or not 1 <= len(value) <= MAX_LIST_VALUES:
                raise _problem(f"{path}: {name} takes a list of 1 to {MAX_LIST_VALUES} values")
            cleaned[name] = [_scalar_clean(path, item) for item in value]
        else:
            cleaned[name] = _scalar_clean(path, value)
    return cleaned


def filter_clean(value: Any) -> dict[str, Any] | None:
    """`filter` as stored: None (null or {}: every event) or an object of 1 to 20 conditions."""
    if value is None or value == {}:
        return None
    if not isinstance(value, dict):
        raise _problem('must be an object of conditions, e.g. {"data.fromMe": false}')
    if len(value) > MAX_CONDITIONS:
        raise _problem(f"at most {MAX_CONDITIONS} conditions")
    cleaned: dict[str, Any] = {}
    for path, condition in value.items():
        parts = path.split(".")
        if not path or len(path) > MAX_PATH_LENGTH or any(not part for part in parts):
            raise _problem(f"{path!r}: a path is dotted names, e.g. data.type (at most {MAX_PATH_LENGTH})")
        if isinstance(condition, dict):
            cleaned[path] = _operators_clean(path, condition)
        else:
            cleaned[path] = _scalar_clean(path, condition)
    return cleaned


def _at(body: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(body, dict) and part in body:
            body = body[part]
        elif isinstance(body, list) and part.isdigit() and int(part) < len(body):
            body = body[int(part)]
        else:
            return _MISSING
    return body


def _equal(found: Any, wanted: Any) -> bool:
    """JSON equality: a boolean equals only a boolean (Python has True == 1)."""
    if found is _MISSING:
        return False
    if isinstance(found, bool) or isinstance(wanted, bool):
        return isinstance(found, bool) and isinstance(wanted, bool) and found is wanted
    return found == wanted


def _holds(found: Any, condition: Any) -> bool:
    if not isinstance(condition, dict):
        return _equal(found, condition)
    for name, value in condition.items():
        if name == "$exists":
            ok = (found is not _MISSING) is value
        elif name == "$eq":
            ok = _equal(found, value)
        elif name == "$ne":
            ok = not _equal(found, value)
        elif name == "$in":
            ok = any(_equal(found, item) for item in value)
        else:  # $nin
            ok = not any(_equal(found, item) for item in value)
        if not ok:
            return False
    return True


def filter_matches(conditions: dict[str, Any] | None, body: Any) -> bool:
    """Whether the delivered `body` meets every condition of a stored filter (None: always)."""
    if not conditions:
        return True
    return all(_holds(_at(body, path), condition) for path, condition in conditions.items())
