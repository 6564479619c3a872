"""The typed event contract: one frozen dataclass per kind of thing an engine reports.

An engine builds one of these where it learns what happened (`Engine.report(session_id, event)`); the
messaging app records it and hands its wire form (`to_data()`, camelCase keys, JSON-safe) to the event
sink. The webhook renderers (registered envelope and `meta`) parse stored data back with
`event_from_data` and read these attributes only, so every spelling is decided here, once:
`mimeType`, `qrCode`, `video`, `fileName`, `voice`, nested `location`, `reaction`, `quoted`.

The same wire form travels over Redis from engine processes (messaging.engines.remote), so
`event_from_data(name, event.to_data()) == event` for every event (tests/messaging/test_event_contract.py).

Fields whose default is ``None`` are left out of the wire form while unset; the others are always there
(for `message`, every field of the message contract). `choices` in a field's metadata lists the values
it takes; the event catalogue's JSON Schemas (webhooks.event_types) are built from these classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from messaging.engines.message_parts import (  # noqa: F401 (re-exported: the contract's one import)
    ButtonRef,
    Card,
    LinkPreviewRef,
    ListRef,
    ListResponseRef,
    ListRowRef,
    ListSectionRef,
    Location,
    PollRef,
    QuotedRef,
    Reaction,
)
from messaging.engines.wire import dump_fields, load

# --- building blocks --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Member:
    jid: str = ""
    admin: bool = False


class EngineEvent:
    """Base of every event: `name` is the event's name as webhooks deliver it (`message`, `qr`, ...)."""

    name: ClassVar[str] = ""

    def to_data(self) -> dict[str, Any]:
        return dump_fields(self)

    @property
    def chat(self) -> str:  # the conversation the event belongs to, "" when none
        return ""


# --- the events ---------------------------------------------------------------------------------------

MESSAGE_TYPES = (
    "text",
    "image",
    "video",
    "audio",
    "document",
    "sticker",
    "location",
    "contacts",
    "reaction",
    "buttons",
    "button_reply",
    "list_reply",
    "button",
    "revoked",
    "poll",
    "list",
    "list_response",
)
MEDIA_TYPES = ("image", "video", "audio", "document", "sticker")


@dataclass(frozen=True)
class MessageEvent(EngineEvent):
    """A message in a chat: received, sent by the session (`from_me`), or synced history (`is_history`).

    `type` is one of MESSAGE_TYPES; the fields of its kind are set (media: `media_url`, `mime_type`,
    `sha256`, `caption`, `file_name`, `size`, `voice`, `animated`; `location`; `contacts`; `reaction`;
    replies: `selected_*`; `revoked`: `revoked_*`; `list`: `list_message`; `list_response`:
    `list_response`). Any message may carry `forwarded` and a text its `link_preview`."""

    name: ClassVar[str] = "message"

    id: str = ""
    chat_jid: str = field(default="", metadata={"key": "chat"})
    sender: str = ""
    push_name: str = ""
    text: str = ""
    timestamp: int = 0
    from_me: bool = False
    type: str = field(default="text", metadata={"choices": MESSAGE_TYPES})
    media_url: str | None = field(default=None, metadata={"always": True})
    is_history: bool | None = None
    # The sender's phone JID and linked id (`…@lid`), null when unknown (messaging.services.lids).
    sender_pn: str | None = field(default=None, metadata={"always": True})
    sender_lid: str | None = field(default=None, metadata={"always": True})
    chat_name: str | None = None
    # media
    media_id: str | None = None
    mime_type: str | None = None
    sha256: str | None = None
    caption: str | None = None
    file_name: str | None = None
    size: int | None = None  # bytes of the stored media (messaging.media)
    voice: bool | None = None
    #: Voice notes: the length in whole seconds and 64 loudness values from 0 to 100 (as WhatsApp draws).
    seconds: int | None = None
    waveform: tuple[int, ...] | None = field(default=None, metadata={"many": int})
    animated: bool | None = None
    view_once: bool | None = None
    sticker_id: str | None = None
    # other kinds
    location: Location | None = field(default=None, metadata={"nested": Location})
    contacts: tuple[Card, ...] | None = field(default=None, metadata={"many": Card})
    display_name: str | None = None
    reaction: Reaction | None = field(default=None, metadata={"nested": Reaction})
    quoted: QuotedRef | None = field(default=None, metadata={"nested": QuotedRef})
    buttons: tuple[ButtonRef, ...] | None = field(default=None, metadata={"many": ButtonRef})
    footer: str | None = None
    selected_id: str | None = None
    selected_title: str | None = None
    selected_description: str | None = None
    revoked_message_id: str | None = None
    revoked_sender: str | None = None
    revoked_from_me: bool | None = None
    poll: PollRef | None = field(default=None, metadata={"nested": PollRef})
    list_message: ListRef | None = field(default=None, metadata={"nested": ListRef, "key": "list"})
    list_response: ListResponseRef | None = field(default=None, metadata={"nested": ListResponseRef})
    link_preview: LinkPreviewRef | None = field(default=None, metadata={"nested": LinkPreviewRef})
    forwarded: bool | None = None
    # The JIDs the message mentions (`@` in its text or caption), in order.
    mentions: tuple[str, ...] | None = field(default=None, metadata={"many": str})

    @property
    def chat(self) -> str:
        return self.chat_jid

    def to_data(self) -> dict[str, Any]:
        data = super().to_data()
        # Clients read the chat under three names (chat, chatId, remoteJid): all present.
        data["chatId"] = data["remoteJid"] = self.chat_jid
        return data


@dataclass(frozen=True)
class MessageAckEvent(EngineEvent):
    """A sent message was delivered, read, played, or failed (`error` says why)."""

    name: ClassVar[str] = "message_ack"

    message_id: str = ""
    chat_jid: str = field(default="", metadata={"key": "chat"})
    status: str = "delivered"  # sent, delivered, read, played, failed
    recipient: str = field(default="", metadata={"key": "from"})
    participant: str | None = None
    error: str | None = None
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it

    @property
    def chat(self) -> str:
        return self.chat_jid


@dataclass(frozen=True)
class PresenceEvent(EngineEvent):
    name: ClassVar[str] = "presence"

    sender: str = field(default="", metadata={"key": "from"})
    presence: str = "available"  # available, unavailable, composing, recording, paused
    chat_jid: str | None = field(default=None, metadata={"key": "chat"})
    last_seen: int | None = None
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it

    @property
    def chat(self) -> str:
        return self.chat_jid or self.sender


@dataclass(frozen=True)
class ConnectedEvent(EngineEvent):
    name: ClassVar[str] = "connected"

    jid: str = ""
    phone: str = ""
    push_name: str = ""
    platform: str = ""
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it


@dataclass(frozen=True)
class DisconnectedEvent(EngineEvent):
    name: ClassVar[str] = "disconnected"

    reason: str = "unknown"  # logout, logged_out, banned, conflict, ...
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it


@dataclass(frozen=True)
class QrEvent(EngineEvent):
    """A new QR code to scan (`serial` counts the codes of this pairing attempt)."""

    name: ClassVar[str] = "qr"

    qr_code: str = ""
    expires_at: str = ""  # ISO 8601
    serial: int = 0
    image: str | None = None  # PNG data URI, when the engine renders one
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it


@dataclass(frozen=True)
class CallEvent(EngineEvent):
    name: ClassVar[str] = "call"

    caller: str = field(default="", metadata={"key": "from"})
    call_id: str | None = None
    video: bool = False
    status: str = "offer"  # offer, accept, reject, terminate
    is_group: bool = False
    push_name: str | None = None
    # `reject` by the session's `rejectCalls` setting: the text sent to the caller, if any
    reject_message: str | None = None
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it

    @property
    def chat(self) -> str:
        return self.caller


@dataclass(frozen=True)
class GroupChange(EngineEvent):
    """Participants joined or left a group, or its subject, description or settings changed; `members`
    is the group after it. `group_update` names what changed in `changed` (`subject`, `description`,
    `announce`, `locked`, `invite`, `admins`) and carries the new `description`, `announce` and `locked`
    when they are among them."""

    group: str = ""
    participants: tuple[str, ...] = field(default=(), metadata={"many": str})
    by: str = ""
    subject: str = ""
    subject_time: int = 0
    creation: int = 0
    owner: str = ""
    members: tuple[Member, ...] = field(default=(), metadata={"many": Member})
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it
    changed: tuple[str, ...] | None = field(default=None, metadata={"many": str})
    description: str | None = None
    announce: bool | None = None
    locked: bool | None = None

    @property
    def chat(self) -> str:
        return self.group


@dataclass(frozen=True)
class GroupJoinEvent(GroupChange):
    name: ClassVar[str] = "group_join"


@dataclass(frozen=True)
class GroupLeaveEvent(GroupChange):
    name: ClassVar[str] = "group_leave"


@dataclass(frozen=True)
class GroupUpdateEvent(GroupChange):
    name: ClassVar[str] = "group_update"


@dataclass(frozen=True)
class ChatArchiveEvent(EngineEvent):
    name: ClassVar[str] = "chat_archive"

    chat_jid: str = field(default="", metadata={"key": "chat"})
    archived: bool = True
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it

    @property
    def chat(self) -> str:
        return self.chat_jid


@dataclass(frozen=True)
class HealthEvent(EngineEvent):
    """Whether the account can send (`AVAILABLE`, `LIMITED`, `BLOCKED`) and why."""

    name: ClassVar[str] = "health"

    status: str = "AVAILABLE"
    reason: str = ""
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it


@dataclass(frozen=True)
class PollVoteEvent(EngineEvent):
    """A vote in a poll: the voter's whole current choice (option names; empty: the vote was cleared)."""

    name: ClassVar[str] = "poll_vote"

    poll_message_id: str = ""
    voter: str = ""
    selected_options: tuple[str, ...] = field(default=(), metadata={"many": str})
    chat_jid: str = field(default="", metadata={"key": "chat"})
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it

    @property
    def chat(self) -> str:
        return self.chat_jid


@dataclass(frozen=True)
class MessageEditedEvent(EngineEvent):
    """A text message was edited, by the session (`from_me`) or by its author on the other side."""

    name: ClassVar[str] = "message_edited"

    message_id: str = ""
    chat_jid: str = field(default="", metadata={"key": "chat"})
    text: str = ""
    edited_at: str = ""  # ISO 8601
    from_me: bool = False
    sender: str | None = None

    @property
    def chat(self) -> str:
        return self.chat_jid


EVENT_TYPES: dict[str, type[EngineEvent]] = {
    cls.name: cls
    for cls in (
        MessageEvent,
        MessageAckEvent,
        PresenceEvent,
        ConnectedEvent,
        DisconnectedEvent,
        QrEvent,
        CallEvent,
        GroupJoinEvent,
        GroupLeaveEvent,
        GroupUpdateEvent,
        ChatArchiveEvent,
        HealthEvent,
        PollVoteEvent,
        MessageEditedEvent,
    )
}


def event_from_data(name: str, data: dict[str, Any]) -> EngineEvent:
    """The typed event stored (or sent) as `data` under `name`. Raises KeyError for an unknown name."""
    return load(EVENT_TYPES[name], data)
