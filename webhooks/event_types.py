"""The event catalogue as data (`GET /gateway/event-types`, the OpenAPI document's `webhooks`): for each
event a registered webhook can receive, its name, description, aliases, the JSON Schema of the body
POSTed and an example body. Built from the typed event contract (messaging.engines.events), the names of
webhooks.catalogue and the envelope of webhooks.payloads, never written by hand twice."""

from __future__ import annotations

from functools import cache
from typing import Any

from messaging.engines.events import EVENT_TYPES
from webhooks.catalogue import ALIASES, EVENTS, ON_REQUEST, OPERATIONAL, TEST_EVENT
from webhooks.event_examples import EXAMPLES, example_body
from webhooks.event_operational import OPERATIONAL_DATA, OPERATIONAL_EXAMPLES
from webhooks.event_schemas import body_schema, object_schema

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# `webhook.test` is no engine event: its data is Ponte's own (webhooks.registered.test_event).
_TEST_DATA = {
    "type": "object",
    "properties": {
        "webhookId": {"type": "string", "description": "The webhook it was sent to (wh_…)."},
        "message": {"type": "string"},
    },
    "required": ["webhookId", "message"],
}
_TEST_EXAMPLE = {
    "webhookId": "wh_Q2x9mT4bVf7kR1sPz8aB",
    "message": "A test event sent on request; nothing happened.",
}


def _entry(
    name: str, description: str, data_schema: dict[str, Any], example: dict[str, Any]
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "aliases": [alias for alias, canonical in ALIASES.items() if canonical == name],
        "schema": body_schema(name, data_schema, description=description),
        "example": example_body(name, example),
    }


@cache  # the contract is fixed for the life of the process
def event_types() -> tuple[dict[str, Any], ...]:
    """Every event of the catalogue in its order, the operational ones (webhooks.outbox.operational),
    then the one sent only on request (`webhook.test`)."""
    entries = [
        _entry(name, description, object_schema(EVENT_TYPES[name]), EXAMPLES[name].to_data())
        for name, description in EVENTS.items()
    ]
    entries += [
        _entry(name, description, OPERATIONAL_DATA[name], OPERATIONAL_EXAMPLES[name])
        for name, description in OPERATIONAL.items()
    ]
    entries.append(_entry(TEST_EVENT, ON_REQUEST[TEST_EVENT], _TEST_DATA, _TEST_EXAMPLE))
    return tuple(entries)


def component_name(event_name: str) -> str:
    """The OpenAPI component of an event's body: `message_ack` → `MessageAckWebhookBody`."""
    words = event_name.replace(".", "_").split("_")
    return "".join(word.title() for word in words) + "WebhookBody"
