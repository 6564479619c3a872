"""JSON Schemas (2020-12, what OpenAPI 3.1 uses) of the bodies registered webhooks receive, built from
the typed event contract (messaging.engines.events) and its wire form (messaging.engines.wire): one
schema per event class, so a field added to an event is in its schema without anyone writing it twice.

What the wire form promises is what the schema says: a field left out while unset (default None) is
optional and never null; a field always sent is required, and may be null only when its type admits
None (`mediaUrl`). Schemas leave `additionalProperties` open: new fields are additive (docs/webhooks.md),
so a receiver validating with them keeps working when one is added; the tests close them to prove each
schema lists every field that is sent.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from typing import Any

from messaging.engines.events import EngineEvent
from messaging.engines.wire import omitted_while_none, wire_key

_JSON_TYPES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _admits_none(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in typing.get_args(hint)


def _value_schema(hint: Any) -> dict[str, Any]:
    """The schema of a value of `hint`, None aside (the field decides about null)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        (hint,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    if typing.get_origin(hint) is tuple:
        return {"type": "array", "items": _value_schema(typing.get_args(hint)[0])}
    if dataclasses.is_dataclass(hint):
        return object_schema(hint)
    return {"type": _JSON_TYPES[hint]}


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    if isinstance(schema.get("type"), str) and "enum" not in schema:
        return {**schema, "type": [schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _summary(cls: type) -> str:
    doc = inspect.getdoc(cls) or ""
    # A dataclass without a docstring gets its signature as one: not a description.
    return "" if doc.startswith(cls.__name__ + "(") else doc.split("\n\n")[0].replace("\n", " ")


def object_schema(cls: type) -> dict[str, Any]:
    """The schema of a contract dataclass's wire form (an event's `data`, or a nested value)."""
    hints = typing.get_type_hints(cls)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for f in dataclasses.fields(cls):
        key, hint = wire_key(f), hints[f.name]
        schema = _value_schema(hint)
        if f.metadata.get("choices"):
            schema["enum"] = list(f.metadata["choices"])
        if not omitted_while_none(f):
            required.append(key)
            if _admits_none(hint):
                schema = _or_null(schema)
        properties[key] = schema
    if isinstance(cls, type) and issubclass(cls, EngineEvent):
        # Keys an event's to_data() adds beside its fields (message: chatId, remoteJid), always sent.
        for key, value in cls().to_data().items():
            if key not in properties:
                properties[key] = {"type": _JSON_TYPES[type(value)]}
                required.append(key)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    summary = _summary(cls)
    return {"description": summary, **schema} if summary else schema


def body_schema(name: str, data: dict[str, Any], *, description: str = "") -> dict[str, Any]:
    """The registered webhook's body of the event `name`: `{event, session_id, data, timestamp}`."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "event": {"const": name, "description": "The event's canonical name."},
            "session_id": {"type": "string", "format": "uuid", "description": "The session it happened on."},
            "data": data,
            "timestamp": {
                "type": "string",
                "format": "date-time",
                "description": "When it happened (ISO 8601, UTC, milliseconds); the same on every retry.",
            },
        },
        "required": ["event", "session_id", "data", "timestamp"],
    }
    return {"title": f"{name} webhook body", "description": description, **schema}


def closed(schema: Any) -> Any:
    """A copy of `schema` in which every object refuses properties it does not list (the tests check
    that a schema names every field that is sent)."""
    if isinstance(schema, list):
        return [closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    copy = {key: closed(value) for key, value in schema.items()}
    if copy.get("type") == "object" and "properties" in copy:
        copy["additionalProperties"] = False
    return copy
