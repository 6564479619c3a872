"""The bodies registered webhooks receive, typed: `EventName` (every name, a `Literal`), one `TypedDict`
per event body and its `data` (keys as sent, camelCase), and `WebhookBody`, their union (narrow it on
`body["event"]`). Mirrors `GET /gateway/event-types` and the OpenAPI document's `webhooks`; a test checks
every class against the server's schemas. Keys not listed here may be added by newer servers."""

# No `from __future__ import annotations`: TypedDict reads NotRequired only from evaluated annotations.
from typing import Literal, TypedDict

from ponte_client.event_data import (
    CallData,
    ChatArchiveData,
    ChatMuteData,
    ChatPinData,
    ChatUnreadData,
    ConnectedData,
    ContactBlockData,
    DisconnectedData,
    GroupJoinData,
    GroupLeaveData,
    GroupUpdateData,
    HealthData,
    LabelAssociationData,
    LabelEditData,
    MessageAckData,
    MessageData,
    MessageEditedData,
    PollVoteData,
    PresenceData,
    QrData,
    StatusData,
    WebhookDeadLetterData,
    WebhookDisabledData,
    WebhookTestData,
)

EventName = Literal[
    "message",
    "message_ack",
    "connected",
    "disconnected",
    "qr",
    "group_join",
    "group_leave",
    "call",
    "presence",
    "chat_archive",
    "group_update",
    "health",
    "poll_vote",
    "message_edited",
    "chat_pin",
    "chat_mute",
    "chat_unread",
    "contact_block",
    "label_edit",
    "label_association",
    "status",
    "webhook.disabled",
    "webhook.dead_letter",
    "webhook.test",
]
EVENT_NAMES: tuple[EventName, ...] = (
    "message",
    "message_ack",
    "connected",
    "disconnected",
    "qr",
    "group_join",
    "group_leave",
    "call",
    "presence",
    "chat_archive",
    "group_update",
    "health",
    "poll_vote",
    "message_edited",
    "chat_pin",
    "chat_mute",
    "chat_unread",
    "contact_block",
    "label_edit",
    "label_association",
    "status",
    "webhook.disabled",
    "webhook.dead_letter",
    "webhook.test",
)


class MessageBody(TypedDict):
    """`message`: New message received (text, media, location, contact)."""

    event: Literal["message"]
    session_id: str
    data: MessageData
    timestamp: str  # ISO 8601, UTC


class MessageAckBody(TypedDict):
    """`message_ack`: Read or delivery confirmation of a sent message."""

    event: Literal["message_ack"]
    session_id: str
    data: MessageAckData
    timestamp: str  # ISO 8601, UTC


class ConnectedBody(TypedDict):
    """`connected`: Session connected."""

    event: Literal["connected"]
    session_id: str
    data: ConnectedData
    timestamp: str  # ISO 8601, UTC


class DisconnectedBody(TypedDict):
    """`disconnected`: Session disconnected (logout, ban, conflict)."""

    event: Literal["disconnected"]
    session_id: str
    data: DisconnectedData
    timestamp: str  # ISO 8601, UTC


class QrBody(TypedDict):
    """`qr`: New QR code generated for pairing."""

    event: Literal["qr"]
    session_id: str
    data: QrData
    timestamp: str  # ISO 8601, UTC


class GroupJoinBody(TypedDict):
    """`group_join`: Participant joined a group."""

    event: Literal["group_join"]
    session_id: str
    data: GroupJoinData
    timestamp: str  # ISO 8601, UTC


class GroupLeaveBody(TypedDict):
    """`group_leave`: Participant left a group."""

    event: Literal["group_leave"]
    session_id: str
    data: GroupLeaveData
    timestamp: str  # ISO 8601, UTC


class CallBody(TypedDict):
    """`call`: Incoming voice or video call (status reject when the session rejects calls)."""

    event: Literal["call"]
    session_id: str
    data: CallData
    timestamp: str  # ISO 8601, UTC


class PresenceBody(TypedDict):
    """`presence`: Contact online/offline update."""

    event: Literal["presence"]
    session_id: str
    data: PresenceData
    timestamp: str  # ISO 8601, UTC


class ChatArchiveBody(TypedDict):
    """`chat_archive`: Chat archived or unarchived."""

    event: Literal["chat_archive"]
    session_id: str
    data: ChatArchiveData
    timestamp: str  # ISO 8601, UTC


class GroupUpdateBody(TypedDict):
    """`group_update`: Group subject, description, settings or invite link changed."""

    event: Literal["group_update"]
    session_id: str
    data: GroupUpdateData
    timestamp: str  # ISO 8601, UTC


class HealthBody(TypedDict):
    """`health`: Whether the account can send (AVAILABLE, LIMITED, BLOCKED)."""

    event: Literal["health"]
    session_id: str
    data: HealthData
    timestamp: str  # ISO 8601, UTC


class PollVoteBody(TypedDict):
    """`poll_vote`: A vote in a poll (the voter's whole choice; empty when cleared)."""

    event: Literal["poll_vote"]
    session_id: str
    data: PollVoteData
    timestamp: str  # ISO 8601, UTC


class MessageEditedBody(TypedDict):
    """`message_edited`: A text message was edited (by the session or the other side)."""

    event: Literal["message_edited"]
    session_id: str
    data: MessageEditedData
    timestamp: str  # ISO 8601, UTC


class ChatPinBody(TypedDict):
    """`chat_pin`: Chat pinned or unpinned."""

    event: Literal["chat_pin"]
    session_id: str
    data: ChatPinData
    timestamp: str  # ISO 8601, UTC


class ChatMuteBody(TypedDict):
    """`chat_mute`: Chat muted until a time, or unmuted."""

    event: Literal["chat_mute"]
    session_id: str
    data: ChatMuteData
    timestamp: str  # ISO 8601, UTC


class ChatUnreadBody(TypedDict):
    """`chat_unread`: Chat marked unread, or read again."""

    event: Literal["chat_unread"]
    session_id: str
    data: ChatUnreadData
    timestamp: str  # ISO 8601, UTC


class ContactBlockBody(TypedDict):
    """`contact_block`: Contact blocked or unblocked."""

    event: Literal["contact_block"]
    session_id: str
    data: ContactBlockData
    timestamp: str  # ISO 8601, UTC


class LabelEditBody(TypedDict):
    """`label_edit`: Label created, changed or deleted (WhatsApp Business)."""

    event: Literal["label_edit"]
    session_id: str
    data: LabelEditData
    timestamp: str  # ISO 8601, UTC


class LabelAssociationBody(TypedDict):
    """`label_association`: Label put on a chat or taken off it."""

    event: Literal["label_association"]
    session_id: str
    data: LabelAssociationData
    timestamp: str  # ISO 8601, UTC


class StatusBody(TypedDict):
    """`status`: A contact posted a status (story) the session saw, or deleted one."""

    event: Literal["status"]
    session_id: str
    data: StatusData
    timestamp: str  # ISO 8601, UTC


class WebhookTestBody(TypedDict):
    """`webhook.test`: A test event sent on request to one webhook (POST /gateway/webhooks/{id}/test)."""

    event: Literal["webhook.test"]
    session_id: str
    data: WebhookTestData
    timestamp: str  # ISO 8601, UTC


class WebhookDisabledBody(TypedDict):
    """`webhook.disabled`: Another webhook of the account was disabled (with the reason)."""

    event: Literal["webhook.disabled"]
    session_id: str
    data: WebhookDisabledData
    timestamp: str  # ISO 8601, UTC


class WebhookDeadLetterBody(TypedDict):
    """`webhook.dead_letter`: A delivery to another webhook of the account became a dead letter."""

    event: Literal["webhook.dead_letter"]
    session_id: str
    data: WebhookDeadLetterData
    timestamp: str  # ISO 8601, UTC


WebhookBody = (
    MessageBody
    | MessageAckBody
    | ConnectedBody
    | DisconnectedBody
    | QrBody
    | GroupJoinBody
    | GroupLeaveBody
    | CallBody
    | PresenceBody
    | ChatArchiveBody
    | GroupUpdateBody
    | HealthBody
    | PollVoteBody
    | MessageEditedBody
    | ChatPinBody
    | ChatMuteBody
    | ChatUnreadBody
    | ContactBlockBody
    | LabelEditBody
    | LabelAssociationBody
    | StatusBody
    | WebhookDisabledBody
    | WebhookDeadLetterBody
    | WebhookTestBody
)
# The body class of each event name.
BODY_TYPES: dict[EventName, type] = {
    "message": MessageBody,
    "message_ack": MessageAckBody,
    "connected": ConnectedBody,
    "disconnected": DisconnectedBody,
    "qr": QrBody,
    "group_join": GroupJoinBody,
    "group_leave": GroupLeaveBody,
    "call": CallBody,
    "presence": PresenceBody,
    "chat_archive": ChatArchiveBody,
    "group_update": GroupUpdateBody,
    "health": HealthBody,
    "poll_vote": PollVoteBody,
    "message_edited": MessageEditedBody,
    "chat_pin": ChatPinBody,
    "chat_mute": ChatMuteBody,
    "chat_unread": ChatUnreadBody,
    "contact_block": ContactBlockBody,
    "label_edit": LabelEditBody,
    "label_association": LabelAssociationBody,
    "status": StatusBody,
    "webhook.disabled": WebhookDisabledBody,
    "webhook.dead_letter": WebhookDeadLetterBody,
    "webhook.test": WebhookTestBody,
}
