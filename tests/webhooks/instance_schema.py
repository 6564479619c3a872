"""JSON Schemas of the instance-webhook bodies, written from seed 002 part (b) (the `meta` envelope and
its `messages[]` type table) and, for the payloads the seed leaves out, from docs/instance-webhooks.md.

Type objects are closed (`additionalProperties: false`) so a field the seed does not list fails."""

from __future__ import annotations

from typing import Any

import jsonschema

STRING = {"type": "string"}
DIGITS = {"type": "string", "pattern": r"^\d*$"}
UNIX_SECONDS = {"type": "string", "pattern": r"^\d{9,11}$"}


def closed(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
        "additionalProperties": False,
    }


MEDIA = {"id": STRING, "url": STRING, "mime_type": {"type": "string", "minLength": 3}, "sha256": STRING}

TYPE_OBJECTS: dict[str, dict[str, Any]] = {
    # link_preview: Ponte's extension (webhooks.meta.lists).
    "text": closed(
        {"body": STRING}, {"link_preview": closed({"url": STRING, "title": STRING, "description": STRING})}
    ),
    "image": closed(MEDIA, {"caption": STRING}),
    "audio": closed({**MEDIA, "voice": {"type": "boolean"}}),
    "video": closed(MEDIA, {"caption": STRING}),
    "document": closed({**MEDIA, "filename": STRING, "caption": STRING}),
    # sticker_id: the social-messenger channel only (checked in the tests).
    "sticker": closed({**MEDIA, "animated": {"type": "boolean"}}, {"sticker_id": STRING}),
    "location": closed(
        {"latitude": {"type": "number"}, "longitude": {"type": "number"}, "name": STRING, "address": STRING}
    ),
    "contacts": {
        "type": "array",
        "minItems": 1,
        "items": closed({"name": closed({"formatted_name": STRING}), "vcard": STRING}),
    },
    # On removal the emoji is absent; `action` for the social-messenger channel only.
    "reaction": closed(
        {"message_id": {"type": "string", "minLength": 1}},
        {"emoji": {"type": "string", "minLength": 1}, "action": {"enum": ["react", "unreact"]}},
    ),
    # Button replies (designed after the cloud API's interactive replies).
    "interactive": {
        "oneOf": [
            closed(
                {
                    "type": {"const": "button_reply"},
                    "button_reply": closed({"id": STRING, "title": STRING}),
                }
            ),
            closed(
                {
                    "type": {"const": "list_reply"},
                    "list_reply": closed({"id": STRING, "title": STRING, "description": STRING}),
                }
            ),
            # A list the session sent: the cloud API's interactive list object, as sent.
            closed(
                {
                    "type": {"const": "list"},
                    "body": closed({"text": STRING}),
                    "action": closed(
                        {
                            "button": STRING,
                            "sections": {
                                "type": "array",
                                "minItems": 1,
                                "items": closed(
                                    {
                                        "title": STRING,
                                        "rows": {
                                            "type": "array",
                                            "minItems": 1,
                                            "items": closed(
                                                {"id": STRING, "title": STRING}, {"description": STRING}
                                            ),
                                        },
                                    }
                                ),
                            },
                        }
                    ),
                },
                {
                    "header": closed({"type": {"const": "text"}, "text": STRING}),
                    "footer": closed({"text": STRING}),
                },
            ),
        ]
    },
    "button": closed({"payload": STRING, "text": STRING}),
    # Ponte's extension (webhooks.meta.polls_edits): the cloud API has no polls and reports no edits.
    "poll_vote": closed(
        {
            "poll_message_id": {"type": "string", "minLength": 1},
            "selected_options": {"type": "array", "items": STRING},
        }
    ),
    "edit": closed({"message_id": {"type": "string", "minLength": 1}, "body": STRING, "edited_at": STRING}),
}

MESSAGE = {
    "type": "object",
    "required": ["from", "chat_type", "id", "timestamp", "type"],
    "properties": {
        "from": DIGITS,
        "from_user_id": STRING,
        "chat_type": {"enum": ["individual", "group"]},
        "id": {"type": "string", "minLength": 1},
        "timestamp": UNIX_SECONDS,
        "type": {"enum": [*TYPE_OBJECTS, "unsupported"]},
        # `forwarded`: the cloud API's flag on a forwarded message (alone, or beside the quoted id).
        "context": {**closed({}, {"id": STRING, "forwarded": {"const": True}}), "minProperties": 1},
        "group_id": STRING,
        "to": DIGITS,
        # Ponte's extension (docs/instance-webhooks.md): whom the message mentions.
        "mentions": {"type": "array", "minItems": 1, "items": STRING},
        # type "unsupported" (a type the seed's table does not have), as the cloud API reports it.
        "errors": {
            "type": "array",
            "minItems": 1,
            "items": closed({"code": {"type": "integer"}, "title": STRING}, {"details": STRING}),
        },
        **TYPE_OBJECTS,
    },
    # Exactly one object named after the type.
    "allOf": [
        {
            "if": {"properties": {"type": {"const": kind}}},
            "then": {
                "required": [kind],
                "not": {"anyOf": [{"required": [other]} for other in TYPE_OBJECTS if other != kind]},
            },
        }
        for kind in TYPE_OBJECTS
    ]
    + [
        {
            "if": {"properties": {"type": {"const": "unsupported"}}},
            "then": {
                "required": ["errors"],
                "not": {"anyOf": [{"required": [other]} for other in TYPE_OBJECTS]},
            },
            "else": {"not": {"required": ["errors"]}},
        }
    ],
    "additionalProperties": False,
}

METADATA = closed({"display_phone_number": DIGITS, "phone_number_id": {"type": "string", "minLength": 1}})
CONTACT = {
    "type": "object",
    "required": ["profile"],
    "properties": {"profile": closed({"name": STRING}), "user_id": STRING},
    "patternProperties": {"^(wa|ig|fb)_id$": DIGITS},
    "minProperties": 2,
    "additionalProperties": False,
}


def _value(**lists: Any) -> dict[str, Any]:
    return closed(
        {"messaging_product": {"enum": ["whatsapp", "instagram", "messenger"]}, "metadata": METADATA, **lists}
    )


ORDERING = closed(
    {
        "seq": {"type": "integer", "minimum": 1},
        "event_ms": {"type": "integer"},
        "received_at_ms": {"type": "integer"},
        "dispatched_at_ms": {"type": "integer"},
    }
)

MESSAGES_VALUE = _value(
    contacts={"type": "array", "minItems": 1, "items": CONTACT},
    messages={"type": "array", "minItems": 1, "items": MESSAGE},
)
# The ordering block: the social-messenger channel only (checked in the tests).
MESSAGES_VALUE["properties"]["ponte"] = ORDERING

VALUES: dict[str, dict[str, Any]] = {
    "messages": {
        "oneOf": [
            MESSAGES_VALUE,
            _value(
                statuses={
                    "type": "array",
                    "minItems": 1,
                    "items": closed(
                        {
                            "id": {"type": "string", "minLength": 1},
                            "status": {"enum": ["sent", "delivered", "read", "played", "failed"]},
                            "timestamp": UNIX_SECONDS,
                            "recipient_id": DIGITS,
                            "recipient_type": {"enum": ["individual", "group"]},
                        },
                        {
                            "participant_id": DIGITS,
                            "errors": {
                                "type": "array",
                                "items": closed({"code": {"type": "integer"}, "title": STRING}),
                            },
                        },
                    ),
                }
            ),
        ]
    },
    "presence": _value(
        presences={
            "type": "array",
            "minItems": 1,
            "items": closed(
                {
                    "from": DIGITS,
                    "chat_type": {"enum": ["individual", "group"]},
                    "status": {"enum": ["available", "unavailable", "composing", "recording", "paused"]},
                    "timestamp": UNIX_SECONDS,
                },
                {"group_id": STRING, "last_seen": UNIX_SECONDS},
            ),
        }
    ),
    "connection": _value(
        connection=closed(
            {"status": {"enum": ["connected", "disconnected"]}, "timestamp": UNIX_SECONDS},
            {"phone_number": DIGITS, "name": STRING, "reason": STRING},
        )
    ),
    "qrcode": _value(
        qrcode=closed(
            {"code": {"type": "string", "minLength": 1}, "timestamp": UNIX_SECONDS},
            {"image": STRING, "expires_at": STRING, "attempt": {"type": "integer"}},
        )
    ),
    "call": _value(
        contacts={"type": "array", "items": CONTACT},
        calls={
            "type": "array",
            "minItems": 1,
            "items": closed(
                {
                    "id": {"type": "string", "minLength": 1},
                    "from": DIGITS,
                    "to": DIGITS,
                    "event": {"enum": ["offer", "accept", "reject", "timeout", "terminate"]},
                    "media": {"enum": ["voice", "video"]},
                    "direction": {"const": "USER_INITIATED"},
                    "is_group": {"type": "boolean"},
                    "timestamp": UNIX_SECONDS,
                }
            ),
        },
    ),
    "groups": _value(
        groups={
            "type": "array",
            "minItems": 1,
            "items": {
                **closed(
                    {
                        "group_id": {"type": "string", "pattern": "@g.us$"},
                        "type": {"const": "group_participants_update"},
                        "timestamp": UNIX_SECONDS,
                    },
                    {
                        "added_participants": {
                            "type": "array",
                            "items": closed({"input": STRING, "wa_id": DIGITS}),
                        },
                        "removed_participants": {
                            "type": "array",
                            "items": closed({"input": STRING, "wa_id": DIGITS}),
                        },
                        "subject": STRING,
                        "initiated_by": DIGITS,
                    },
                ),
                "oneOf": [{"required": ["added_participants"]}, {"required": ["removed_participants"]}],
            },
        }
    ),
    "health": _value(
        health=closed(
            {
                "can_send_message": {"enum": ["AVAILABLE", "LIMITED", "BLOCKED"]},
                "reason": STRING,
                "timestamp": UNIX_SECONDS,
            }
        )
    ),
    # Ponte's extension (webhooks/meta/status.py): a contact's status (story).
    "status": _value(
        contacts={"type": "array", "minItems": 1, "items": CONTACT},
        status_posts={
            "type": "array",
            "minItems": 1,
            "items": closed(
                {
                    "from": DIGITS,
                    "id": {"type": "string", "minLength": 1},
                    "timestamp": UNIX_SECONDS,
                    "type": {"enum": ["text", "image", "video", "revoked"]},
                },
                {
                    "text": closed({"body": STRING, "background_color": STRING, "font": {"type": "integer"}}),
                    "image": closed(
                        {"url": STRING, "mime_type": STRING, "sha256": STRING, "caption": STRING}
                    ),
                    "video": closed(
                        {"url": STRING, "mime_type": STRING, "sha256": STRING, "caption": STRING}
                    ),
                },
            ),
        },
    ),
}

ENVELOPE = closed(
    {
        "object": {"const": "ponte"},
        "provider": {"enum": ["whatsapp", "instagram", "messenger"]},
        "instance": {"type": "string", "minLength": 1},
        "official": {"type": "boolean"},
        "entry": {
            "type": "array",
            "minItems": 1,
            "items": closed(
                {
                    "id": {"type": "string", "pattern": r"^ponte_[A-Za-z0-9_-]{22}$"},
                    "changes": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            **closed({"field": {"enum": list(VALUES)}, "value": {"type": "object"}}),
                            "allOf": [
                                {
                                    "if": {"properties": {"field": {"const": field}}},
                                    "then": {"properties": {"value": schema}},
                                }
                                for field, schema in VALUES.items()
                            ],
                        },
                    },
                }
            ),
        },
    }
)

PLAIN = closed(
    {
        "event": STRING,
        "field": {"enum": list(VALUES)},
        "instance": STRING,
        "provider": STRING,
        "official": {"type": "boolean"},
        "session_id": STRING,
        "data": {"type": "object"},
        "timestamp": {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT.*Z$"},
    }
)

jsonschema.Draft202012Validator.check_schema(ENVELOPE)
jsonschema.Draft202012Validator.check_schema(PLAIN)


def validate_envelope(body: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(ENVELOPE).validate(body)


def validate_plain(body: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(PLAIN).validate(body)
