"""The data of the operational events (webhooks.outbox.operational) as JSON Schemas and examples, for the
event catalogue (webhooks.event_types): Ponte's own bodies, not engine events."""

from __future__ import annotations

from typing import Any

_STRING = {"type": "string"}
_WEBHOOK = {"type": "string", "description": "The webhook it is about (wh_…), not the one receiving it."}
_SESSION = {"type": "string", "format": "uuid", "description": "That webhook's session."}

OPERATIONAL_DATA: dict[str, dict[str, Any]] = {
    "webhook.disabled": {
        "type": "object",
        "properties": {
            "webhookId": _WEBHOOK,
            "sessionId": _SESSION,
            "url": {"type": "string", "description": "Its URL."},
            "reason": {"type": "string", "description": "Why it was disabled (its disabledReason)."},
            "disabledAt": {"type": ["string", "null"], "format": "date-time"},
        },
        "required": ["webhookId", "sessionId", "url", "reason", "disabledAt"],
    },
    "webhook.dead_letter": {
        "type": "object",
        "properties": {
            "deliveryId": {"type": "integer", "description": "GET /gateway/deliveries/{id}."},
            "eventId": {"type": "string", "description": "The dead delivery's webhook-id (msg_…)."},
            "event": {"type": "string", "description": "The name of the event that was not delivered."},
            "webhookId": _WEBHOOK,
            "sessionId": _SESSION,
            "deadAt": {"type": "string", "format": "date-time"},
        },
        "required": ["deliveryId", "eventId", "event", "webhookId", "sessionId", "deadAt"],
    },
}

OPERATIONAL_EXAMPLES: dict[str, dict[str, Any]] = {
    "webhook.disabled": {
        "webhookId": "wh_Q2x9mT4bVf7kR1sPz8aB",
        "sessionId": "8f0d2a8e-3c1b-4f6e-9d55-0b7f3b1f2a10",
        "url": "https://hooks.example.com/ponte",
        "reason": "Every delivery attempt failed since 2026-11-20T04:00:00-03:00 (120 attempts in a row).",
        "disabledAt": "2026-11-25T04:00:00.000000-03:00",
    },
    "webhook.dead_letter": {
        "deliveryId": 4182,
        "eventId": "msg_5f0c6b1e2d3a4f5e8a9b0c1d2e3f4a5b",
        "event": "message",
        "webhookId": "wh_Q2x9mT4bVf7kR1sPz8aB",
        "sessionId": "8f0d2a8e-3c1b-4f6e-9d55-0b7f3b1f2a10",
        "deadAt": "2026-11-25T04:01:25.000000-03:00",
    },
}
