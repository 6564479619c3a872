"""The OpenAPI document's `webhooks` section (OpenAPI 3.1): one entry per event a registered webhook
receives, its body a component named after it (`MessageWebhookBody`, ...), plus `WebhookEventName`, the
names as an enum. A drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS), since the bodies are
JSON Schemas built from the event contract (webhooks.event_types), not serializers."""

from __future__ import annotations

import copy
from typing import Any

from webhooks.event_types import component_name, event_types

_HEADERS = {
    "x-webhook-id": "The dispatch's id (msg_…): the same on every retry and resend; deduplicate on it.",
    "x-webhook-timestamp": "ISO 8601 time of this attempt.",
    "x-webhook-signature": "Hex HMAC-SHA256 of the raw body with the webhook's secret; only with a secret.",
    "webhook-id": "Standard Webhooks: the same value as x-webhook-id.",
    "webhook-timestamp": "Standard Webhooks: Unix seconds of this attempt.",
    "webhook-signature": "Standard Webhooks: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`; with a secret.",
}
_SIGNED_ONLY = {"x-webhook-signature", "webhook-signature"}
EVENT_NAME_COMPONENT = "WebhookEventName"


def _operation(entry: dict[str, Any]) -> dict[str, Any]:
    name = entry["name"]
    return {
        "operationId": "webhook_" + name.replace(".", "_"),
        "summary": entry["description"],
        "description": (
            f"The body POSTed to a registered webhook for `{name}`"
            + (
                f" (aliases accepted on subscribing: {', '.join(entry['aliases'])})"
                if entry["aliases"]
                else ""
            )
            + ". Answer 2xx or 3xx within 10 seconds; anything else is retried on the webhook's schedule."
        ),
        "tags": ["webhook events"],
        "parameters": [
            {
                "name": header,
                "in": "header",
                "required": header not in _SIGNED_ONLY,
                "description": text,
                "schema": {"type": "string"},
            }
            for header, text in _HEADERS.items()
        ],
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"$ref": f"#/components/schemas/{component_name(name)}"},
                    "example": entry["example"],
                }
            },
        },
        "responses": {"200": {"description": "Received (any status below 400 counts as delivered)."}},
    }


def event_webhooks_hook(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Add each event's body to `components` and its delivery to `webhooks`."""
    entries = event_types()
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas[EVENT_NAME_COMPONENT] = {
        "type": "string",
        "enum": [entry["name"] for entry in entries],
        "description": "The name of an event a registered webhook receives (GET /gateway/event-types).",
    }
    for entry in entries:
        schemas[component_name(entry["name"])] = copy.deepcopy(entry["schema"])
    result["webhooks"] = {entry["name"]: {"post": _operation(entry)} for entry in entries}
    return result
