"""The wire form of engine events (messaging.engines.events): dataclass fields to camelCase JSON keys
and back. Every spelling of a key is decided by the events' field names and metadata (`key`, `nested`,
`many`, `always`); this module only applies them."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any


@cache  # a field name's wire key is asked for every field of every event
def _camel(name: str) -> str:
    name = name.rstrip("_")
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@cache  # fields are hashed by identity; every event's fields are keyed again each time it is loaded
def _key(f: dataclasses.Field) -> str:
    return f.metadata.get("key") or _camel(f.name)


def wire_key(f: dataclasses.Field) -> str:
    """The JSON key of an event's field (the JSON Schemas of webhooks.event_types are built from it)."""
    return _key(f)


def omitted_while_none(f: dataclasses.Field) -> bool:
    """Whether the field is left out of the wire form while it is None (else it is always there)."""
    return f.default is None and not f.metadata.get("always")


def _dump(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dump_fields(value)
    if isinstance(value, tuple | list):
        return [_dump(v) for v in value]
    return value


@cache
def _wire_fields(cls: type) -> tuple[tuple[str, str, bool], ...]:
    """(attribute, wire key, left out while None) for each field of `cls`: worked out once per class,
    as every event is dumped several times on its way (recorded, emitted, answered)."""
    return tuple((f.name, _key(f), omitted_while_none(f)) for f in dataclasses.fields(cls))


def dump_fields(obj: Any) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name, key, omit_none in _wire_fields(type(obj)):
        value = getattr(obj, name)
        if value is None and omit_none:
            continue
        data[key] = _dump(value)
    return data


def load(cls: type, data: Any) -> Any:
    """Build `cls` from its wire form; unknown keys are ignored, missing ones take their default."""
    if not isinstance(data, dict):
        data = {}
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        key = _key(f)
        if key not in data or (data[key] is None and f.default is not None):
            continue
        raw = data[key]
        nested = f.metadata.get("nested")
        many = f.metadata.get("many")
        if nested is not None and raw is not None:
            raw = load(nested, raw)
        elif many is not None and raw is not None:
            # Plain values (`many` is str or int) are coerced; contract dataclasses are loaded.
            raw = tuple(many(item) if many in (str, int) else load(many, item) for item in (raw or ()))
        values[f.name] = raw
    return cls(**values)
