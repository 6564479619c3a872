"""Rendering of instance-webhook bodies: the `meta` (cloud-API) envelope and the `plain` one.

`meta` follows the official cloud API's webhook envelope (the instance webhooks' contract) with
`object` = "ponte" and `provider`, `instance`, `official` on top:

    {"object": "ponte", "provider": "whatsapp", "instance": "<id>", "official": false,
     "entry": [{"id": "ponte_<base64url id>", "changes": [{"field": "messages", "value": {...}}]}]}

`value` always carries `messaging_product` and `metadata {display_phone_number, phone_number_id}`, then
one list named after what happened: `messages[]` (with `contacts[]`), `statuses[]` (message_ack),
`presences[]`, `connection`, `qrcode`, `calls[]`, `groups[]`, `health`, and Ponte's extension
`chats[]`, `blocklist[]`, `labels[]` / `label_associations[]` (webhooks.meta.chats_labels). The shapes
the contract leaves open are Ponte's design after the cloud API.

Inputs are the typed events of messaging's event contract (messaging.engines.events), parsed back from
the stored data: only their fields are read, under one spelling each.
"""

from __future__ import annotations

from typing import Any

from core.timefmt import iso_millis_of_ms
from messaging.engines.events import EngineEvent
from messaging.models import Session
from webhooks.meta.chats_labels import blocklist_value, chats_value, labels_value
from webhooks.meta.common import (  # noqa: F401  (the format's public names)
    FIELDS,
    decode_entry_id,
    entry_id,
    envelope_provider,
    instance_id,
    user_part,
    wrap_envelope,
)
from webhooks.meta.messages import messages_value, stamp_dispatch  # noqa: F401
from webhooks.meta.polls_edits import message_edited_value, poll_vote_value
from webhooks.meta.states import (
    call_value,
    connection_value,
    groups_value,
    health_value,
    presence_value,
    qrcode_value,
    statuses_value,
)
from webhooks.meta.status import status_value
from webhooks.models import Event

_VALUES = {
    "message": messages_value,
    "message_ack": statuses_value,
    "presence": presence_value,
    "connected": connection_value,
    "disconnected": connection_value,
    "qr": qrcode_value,
    "call": call_value,
    "group_join": groups_value,
    "group_leave": groups_value,
    "group_update": groups_value,
    "health": health_value,
    "poll_vote": poll_vote_value,
    "message_edited": message_edited_value,
    "chat_archive": chats_value,
    "chat_pin": chats_value,
    "chat_mute": chats_value,
    "chat_unread": chats_value,
    "contact_block": blocklist_value,
    "label_edit": labels_value,
    "label_association": labels_value,
    "status": status_value,
}


def meta_envelope(session: Session, event: Event, typed: EngineEvent) -> dict[str, Any]:
    """The `meta` body of an event (names in FIELDS only)."""
    return wrap_envelope(session, FIELDS[event.name], _VALUES[event.name](session, event, typed))


def plain_envelope(session: Session, event: Event, typed: EngineEvent) -> dict[str, Any]:
    """The `plain` body: the registered webhooks' `{event, session_id, data, timestamp}`, plus the
    instance fields and the `meta` field name, so both formats route the same way."""
    return {
        "event": event.name,
        "field": FIELDS[event.name],
        "instance": instance_id(session),
        "provider": envelope_provider(session),
        "official": bool(session.official),
        "session_id": str(session.id),
        "data": typed.to_data(),
        "timestamp": iso_millis_of_ms(event.event_ms),
    }
