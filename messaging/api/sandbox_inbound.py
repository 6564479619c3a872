"""The body of `POST /api/sandbox/sessions/{id}/inbound`: one serializer per inbound event, chosen by
`event` (and, for `message`, by `type`), each validating into the data the sandbox engine takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from core.errors import ValidationFailed, validation_failed
from messaging.api.sandbox_chat_inbound import CHAT_INBOUND_EVENTS, CHAT_INBOUND_SERIALIZERS
from messaging.api.sandbox_fields import (
    Flag,
    GroupJid,
    InboundSerializer,
    Jid,
    Named,
    OptionalJid,
    Text,
    optional_text,
)
from messaging.api.sandbox_messages import MESSAGE_SERIALIZERS, MESSAGE_TYPES
from messaging.api.sandbox_status import StatusInbound

INBOUND_EVENTS = (
    "message",
    "message_ack",
    "presence",
    "call",
    "group_join",
    "group_leave",
    "group_update",
    "chat_archive",
    "health",
    "disconnected",
    "poll_vote",
    "message_edited",
    *CHAT_INBOUND_EVENTS,
    "status",
)
# Why a connection drops: the reasons the WhatsApp driver reports too.
DISCONNECT_REASONS = ("logged_out", "replaced", "banned", "stream_error", "connection_lost")
PRESENCES = ("available", "unavailable", "composing", "recording", "paused")


class MessageAckInbound(InboundSerializer):
    """A message the session sent was delivered to or read by the other side."""

    event = Named("message_ack")
    messageId = Text(max_length=100)
    status = serializers.ChoiceField(choices=("delivered", "read"))
    chat = OptionalJid()
    from_ = OptionalJid(allow_group=False)


class PresenceInbound(InboundSerializer):
    """A contact comes online, goes offline, or is typing or recording (in a chat, for a group)."""

    event = Named("presence")
    from_ = Jid(allow_group=False)
    presence = serializers.ChoiceField(choices=PRESENCES)
    chat = OptionalJid()


class CallInbound(InboundSerializer):
    """A voice or video call offered to the session, or how it went on."""

    event = Named("call")
    from_ = Jid(allow_group=False)
    callId = optional_text(100)
    video = Flag(required=False, default=False)
    status = serializers.ChoiceField(choices=("offer", "accept", "reject", "terminate"), default="offer")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return {**attrs, "callId": attrs["callId"] or None}


class ChatArchiveInbound(InboundSerializer):
    """The session's own phone archives a chat (or unarchives it)."""

    event = Named("chat_archive")
    chat = Jid()
    archived = Flag(required=False, default=True)


class DisconnectedInbound(InboundSerializer):
    """The connection drops, for one of the reasons WhatsApp gives."""

    event = Named("disconnected")
    reason = serializers.ChoiceField(choices=DISCONNECT_REASONS)


class HealthInbound(InboundSerializer):
    """WhatsApp limits or blocks the number (or lifts it): the account's health."""

    event = Named("health")
    status = serializers.ChoiceField(choices=("AVAILABLE", "LIMITED", "BLOCKED"))
    reason = optional_text(500)


class PollVoteInbound(InboundSerializer):
    """A vote on a poll the session sent: the voter's whole choice; an empty list clears it."""

    event = Named("poll_vote")
    from_ = Jid(allow_group=False)
    pollMessageId = Text(max_length=100)
    options = serializers.ListField(child=Text(max_length=100), max_length=12, allow_empty=True)


class MessageEditedInbound(InboundSerializer):
    """The other side edits one of its text messages."""

    event = Named("message_edited")
    from_ = Jid(allow_group=False)
    messageId = Text(max_length=100)
    text = Text(max_length=4096)
    chat = OptionalJid()


class GroupUpdateInbound(InboundSerializer):
    """A group's subject is changed."""

    event = Named("group_update")
    group = GroupJid()
    subject = Text(max_length=100)
    by = OptionalJid(allow_group=False)


class GroupLeaveInbound(InboundSerializer):
    """Participants leave a group or are removed from it."""

    event = Named("group_leave")
    group = GroupJid()
    participants = serializers.ListField(child=Jid(allow_group=False), allow_empty=False)
    by = OptionalJid(allow_group=False)


class GroupJoinInbound(GroupLeaveInbound):
    """Participants join a group or are added to it (the session too: the group's subject and admins)."""

    event = Named("group_join")
    subject = optional_text(100)
    admins = serializers.ListField(child=Jid(allow_group=False), required=False, default=list)


# The serializer of each event but `message` (chosen by its `type`: messaging.api.sandbox_messages).
EVENT_SERIALIZERS: dict[str, type[InboundSerializer]] = {
    "message_ack": MessageAckInbound,
    "presence": PresenceInbound,
    "call": CallInbound,
    "group_join": GroupJoinInbound,
    "group_leave": GroupLeaveInbound,
    "group_update": GroupUpdateInbound,
    "chat_archive": ChatArchiveInbound,
    "health": HealthInbound,
    "disconnected": DisconnectedInbound,
    "poll_vote": PollVoteInbound,
    "message_edited": MessageEditedInbound,
    **CHAT_INBOUND_SERIALIZERS,
    "status": StatusInbound,
}


def _chosen(table: Mapping[str, type[InboundSerializer]], name: Any, field: str, names: tuple) -> type:
    serializer_class = table.get(name) if isinstance(name, str) else None
    if serializer_class is None:
        raise validation_failed({field: [f"one of {', '.join(names)}."]})
    return serializer_class


def inbound_clean(body: Any) -> tuple[str, dict[str, Any]]:
    """Validate an inbound event body into the data the sandbox engine takes."""
    if not isinstance(body, dict):
        raise ValidationFailed("The body must be a JSON object with an `event` field.")
    event = body.get("event")
    if event == "message":
        serializer_class = _chosen(MESSAGE_SERIALIZERS, body.get("type", "text"), "type", MESSAGE_TYPES)
    else:
        serializer_class = _chosen(EVENT_SERIALIZERS, event, "event", INBOUND_EVENTS)
    serializer = serializer_class(data=body)
    serializer.is_valid(raise_exception=True)
    data = dict(serializer.validated_data)
    data.pop("event", None)
    return event, data
