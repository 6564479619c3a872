"""The events of chat and contact actions and of labels (issue 41), beside messaging.engines.events:
what the session's phone (or the API, through the engine) changed about a chat, a contact or a label.

Each carries the new state of the one thing it names, as WhatsApp's app-state sync reports it (whatsmeow's
`Pin`, `Mute`, `MarkChatAsRead`, `LabelEdit`, `LabelAssociationChat`; `Blocklist` for blocks);
`chat_archive` (messaging.engines.events) is the fourth chat action. Registered in EVENT_TYPES
by this module, which the package imports (messaging.engines), so they are
known wherever an event is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from messaging.engines.events import EVENT_TYPES, EngineEvent


@dataclass(frozen=True)
class ChatPinEvent(EngineEvent):
    name: ClassVar[str] = "chat_pin"

    chat_jid: str = field(default="", metadata={"key": "chat"})
    pinned: bool = True
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it

    @property
    def chat(self) -> str:
        return self.chat_jid


@dataclass(frozen=True)
class ChatMuteEvent(EngineEvent):
    """`muted_until`: ISO 8601, or None when the chat is not muted (always in the wire form)."""

    name: ClassVar[str] = "chat_mute"

    chat_jid: str = field(default="", metadata={"key": "chat"})
    muted_until: str | None = field(default=None, metadata={"always": True})
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it

    @property
    def chat(self) -> str:
        return self.chat_jid


@dataclass(frozen=True)
class ChatUnreadEvent(EngineEvent):
    """The chat was marked unread (`unread`) or read again on the phone or through the API."""

    name: ClassVar[str] = "chat_unread"

    chat_jid: str = field(default="", metadata={"key": "chat"})
    unread: bool = True
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it

    @property
    def chat(self) -> str:
        return self.chat_jid


@dataclass(frozen=True)
class ContactBlockEvent(EngineEvent):
    name: ClassVar[str] = "contact_block"

    jid: str = ""
    blocked: bool = True
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it

    @property
    def chat(self) -> str:
        return self.jid


@dataclass(frozen=True)
class LabelEditEvent(EngineEvent):
    """A label was created, renamed, recoloured (`color`: 0 to 19) or deleted (`deleted`)."""

    name: ClassVar[str] = "label_edit"

    label_id: str = ""
    label_name: str = field(default="", metadata={"key": "name"})
    color: int = 0
    deleted: bool = False
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it


@dataclass(frozen=True)
class LabelAssociationEvent(EngineEvent):
    """A label was put on a chat (`labeled`) or taken off it."""

    name: ClassVar[str] = "label_association"

    label_id: str = ""
    chat_jid: str = field(default="", metadata={"key": "chat"})
    labeled: bool = True
    timestamp: int | None = None  # Unix seconds; unset: the time Ponte received it

    @property
    def chat(self) -> str:
        return self.chat_jid


CHAT_EVENT_TYPES: tuple[type[EngineEvent], ...] = (
    ChatPinEvent,
    ChatMuteEvent,
    ChatUnreadEvent,
    ContactBlockEvent,
    LabelEditEvent,
    LabelAssociationEvent,
)

EVENT_TYPES.update({cls.name: cls for cls in CHAT_EVENT_TYPES})
