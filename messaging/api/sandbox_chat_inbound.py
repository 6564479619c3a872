"""Sandbox inbound bodies of the chat, contact and label events (issue 41): what the session's own
phone changes (pin, mute, mark unread, block, labels), as WhatsApp's app-state sync reports it.
`chat_archive` is in messaging.api.sandbox_inbound."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from messaging.api.sandbox_fields import Flag, InboundSerializer, Jid, Named, Text, optional_text
from messaging.models_labels import LABEL_COLORS

CHAT_INBOUND_EVENTS = (
    "chat_pin",
    "chat_mute",
    "chat_unread",
    "contact_block",
    "label_edit",
    "label_association",
)


class ChatPinInbound(InboundSerializer):
    """The phone pins a chat (or unpins it)."""

    event = Named("chat_pin")
    chat = Jid()
    pinned = Flag(required=False, default=True)


class ChatMuteInbound(InboundSerializer):
    """The phone mutes a chat until `mutedUntil` (ISO 8601), or unmutes it (null or absent)."""

    event = Named("chat_mute")
    chat = Jid()
    mutedUntil = serializers.DateTimeField(required=False, allow_null=True, default=None)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        until = attrs.get("mutedUntil")
        return {**attrs, "mutedUntil": until.isoformat() if until is not None else None}


class ChatUnreadInbound(InboundSerializer):
    """The phone marks a chat unread (or read)."""

    event = Named("chat_unread")
    chat = Jid()
    unread = Flag(required=False, default=True)


class ContactBlockInbound(InboundSerializer):
    """The phone blocks a contact (or unblocks it)."""

    event = Named("contact_block")
    jid = Jid(allow_group=False)
    blocked = Flag(required=False, default=True)


class LabelEditInbound(InboundSerializer):
    """The phone creates, changes or deletes a label."""

    event = Named("label_edit")
    labelId = Text(max_length=32)
    name = optional_text(100)
    color = serializers.IntegerField(min_value=0, max_value=LABEL_COLORS - 1, required=False, default=0)
    deleted = Flag(required=False, default=False)


class LabelAssociationInbound(InboundSerializer):
    """The phone puts a label on a chat (or takes it off)."""

    event = Named("label_association")
    labelId = Text(max_length=32)
    chat = Jid()
    labeled = Flag(required=False, default=True)


CHAT_INBOUND_SERIALIZERS: dict[str, type[InboundSerializer]] = {
    "chat_pin": ChatPinInbound,
    "chat_mute": ChatMuteInbound,
    "chat_unread": ChatUnreadInbound,
    "contact_block": ContactBlockInbound,
    "label_edit": LabelEditInbound,
    "label_association": LabelAssociationInbound,
}
