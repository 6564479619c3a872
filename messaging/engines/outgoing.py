"""What the session sends, as data, and what the engine answers (docs/decisions/0028).

Every send is one call, `Engine.send(session_id, message)`: `message` is one of the frozen dataclasses
below (an `Outgoing` of one `kind`), and the answer is a `Sent`: the message's id, chat and time as the
platform gave them, and the events the send itself produced (the sandbox's `fromMe` echo of the message,
a reaction's or a revocation's own message). The services record the message row and hand those events
to the sinks; nothing is reported back into the services during the call.

A new kind of message is a new dataclass here (its `kind`, its fields, `history()`: what the message's
row keeps), listed in `OUTGOING_KINDS` (the engine bus carries only the classes listed there), a
`send_<kind>(session_id, message) -> Sent` method on the engines that can send it (the others answer
EngineUnsupported: messaging.engines.base.Engine.send) and a service function building it
(messaging.services.messages).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from messaging.engines.events import EngineEvent
from messaging.values import (
    Button,
    ContactCard,
    ForwardContent,
    LinkPreview,
    ListMessage,
    MediaPayload,
    Quoted,
    SentTemplate,
)


@dataclass(frozen=True, kw_only=True)
class Sent:
    """An engine's answer to a send: the message as the platform took it, and the events the call
    produced, in order (empty when the engine reports its echoes on its own: engine processes, the
    WhatsApp library, the Graph API's webhooks)."""

    message_id: str
    chat: str
    timestamp: datetime
    status: str = "sent"
    #: Set when the channel sent a text as a template: the history records it as that template.
    template: SentTemplate | None = None
    events: tuple[EngineEvent, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Injected:
    """The sandbox's answer to an injected inbound event (`Engine.inject`): the event's data, and the
    events to record, in order (the event itself, then what it caused: a rejected call's message)."""

    data: dict[str, Any]
    events: tuple[EngineEvent, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Outgoing:
    """One message for the session to send to `to` (a validated JID: a chat, or the chat of the message
    an operation acts on)."""

    kind: ClassVar[str] = ""
    #: The type of the message's row in the history (None: the send writes no row of its own).
    history_type: ClassVar[str | None] = None
    to: str

    @property
    def row_type(self) -> str | None:
        """The `type` of the message's row in the history (None: the send writes no row of its own)."""
        return self.history_type

    @property
    def carries_media(self) -> bool:
        """Whether the message is media whose stored copy's link the history takes from the echo."""
        return False

    def history(self) -> dict[str, Any]:
        """What the history keeps of the message (its row's `content`)."""
        return {}


def _quote(quoted: Quoted | None) -> dict[str, Any]:
    return {"quoted": {"messageId": quoted.message_id}} if quoted is not None else {}


def _mentions(mentions: tuple[str, ...]) -> dict[str, Any]:
    return {"mentions": list(mentions)} if mentions else {}


@dataclass(frozen=True, kw_only=True)
class OutgoingText(Outgoing):
    kind: ClassVar[str] = "text"
    history_type: ClassVar[str | None] = "text"
    text: str
    quoted: Quoted | None = None
    #: The JIDs the text mentions (messaging.services.mentions).
    mentions: tuple[str, ...] = ()

    def history(self) -> dict[str, Any]:
        return {"text": self.text, **_quote(self.quoted), **_mentions(self.mentions)}


@dataclass(frozen=True, kw_only=True)
class OutgoingContact(Outgoing):
    kind: ClassVar[str] = "contact"
    history_type: ClassVar[str | None] = "contact"
    card: ContactCard

    def history(self) -> dict[str, Any]:
        return {"contacts": [self.card.__dict__], "vcard": self.card.vcard()}


@dataclass(frozen=True, kw_only=True)
class OutgoingContacts(Outgoing):
    kind: ClassVar[str] = "contacts"
    history_type: ClassVar[str | None] = "contacts"
    display_name: str
    cards: tuple[ContactCard, ...]

    def history(self) -> dict[str, Any]:
        return {"displayName": self.display_name, "contacts": [c.__dict__ for c in self.cards]}


@dataclass(frozen=True, kw_only=True)
class OutgoingLocation(Outgoing):
    kind: ClassVar[str] = "location"
    history_type: ClassVar[str | None] = "location"
    latitude: float
    longitude: float
    name: str = ""
    address: str = ""
    quoted: Quoted | None = None

    def history(self) -> dict[str, Any]:
        place = {"latitude": self.latitude, "longitude": self.longitude, "name": self.name}
        return {"location": {**place, "address": self.address}}


@dataclass(frozen=True, kw_only=True)
class OutgoingButtons(Outgoing):
    kind: ClassVar[str] = "buttons"
    history_type: ClassVar[str | None] = "buttons"
    text: str
    buttons: tuple[Button, ...]
    footer: str = ""

    def history(self) -> dict[str, Any]:
        return {"text": self.text, "footer": self.footer, "buttons": [b.__dict__ for b in self.buttons]}


@dataclass(frozen=True, kw_only=True)
class OutgoingMedia(Outgoing):
    """Media as bytes (fetched or decoded by the services). The history keeps what describes the bytes;
    the link to the copy the engine stored is added from its echo (messaging.services.messages)."""

    kind: ClassVar[str] = "media"
    media: MediaPayload
    quoted: Quoted | None = None
    #: The JIDs the caption mentions (messaging.services.mentions).
    mentions: tuple[str, ...] = ()

    @property
    def carries_media(self) -> bool:
        return True

    @property
    def row_type(self) -> str | None:
        return "audio" if self.media.type == "voice" else self.media.type

    def history(self) -> dict[str, Any]:
        media = self.media
        return {
            "caption": media.caption,
            "mimeType": media.mime_type,
            "fileName": media.file_name,
            "sha256": hashlib.sha256(media.data).hexdigest(),
            "size": len(media.data),
            **({"voice": True} if media.type == "voice" else {}),
            # A voice note's length and waveform (messaging.services.audio converted it).
            **({"seconds": media.seconds, "waveform": list(media.waveform)} if media.type == "voice" else {}),
            **_mentions(self.mentions),
        }


@dataclass(frozen=True, kw_only=True)
class OutgoingMediaLink(Outgoing):
    """Media the platform fetches from `link` itself (official channels)."""

    kind: ClassVar[str] = "media_link"
    media_kind: str  # image, video, audio, voice (an OGG/Opus note Ponte converted and serves), ...
    link: str
    caption: str = ""
    file_name: str = ""
    seconds: int = 0  # voice notes: their length and waveform
    waveform: tuple[int, ...] = ()

    @property
    def row_type(self) -> str | None:
        return "audio" if self.media_kind == "voice" else self.media_kind

    def history(self) -> dict[str, Any]:
        content: dict[str, Any] = {
            "mediaUrl": self.link,
            **({"caption": self.caption} if self.caption else {}),
        }
        if self.media_kind == "voice":
            voice = {"voice": True, "seconds": self.seconds, "waveform": list(self.waveform)}
            content.update(mimeType="audio/ogg; codecs=opus", **voice)
        if self.file_name:
            content["fileName"] = self.file_name
        return content


@dataclass(frozen=True, kw_only=True)
class OutgoingPoll(Outgoing):
    """A poll (`options`: 2 to 12 unique names; a voter may choose up to `selectable_count`)."""

    kind: ClassVar[str] = "poll"
    history_type: ClassVar[str | None] = "poll"
    name: str
    options: tuple[str, ...]
    selectable_count: int = 1
    quoted: Quoted | None = None
    #: The JIDs the poll mentions (messaging.services.mentions).
    mentions: tuple[str, ...] = ()

    def history(self) -> dict[str, Any]:
        poll = {"name": self.name, "options": list(self.options), "selectableCount": self.selectable_count}
        return {"poll": poll, **_quote(self.quoted), **_mentions(self.mentions)}


@dataclass(frozen=True, kw_only=True)
class OutgoingReaction(Outgoing):
    """React to message `message_id` of chat `to` (`from_me`, `sender`: its author); an empty `emoji`
    removes the session's reaction. No row of its own: the target's reactions change."""

    kind: ClassVar[str] = "reaction"
    message_id: str
    from_me: bool
    sender: str
    emoji: str


@dataclass(frozen=True, kw_only=True)
class OutgoingEdit(Outgoing):
    """Replace the text of the session's own text message `message_id` of chat `to` (the services have
    checked the author and the 15-minute window)."""

    kind: ClassVar[str] = "edit"
    message_id: str
    text: str


@dataclass(frozen=True, kw_only=True)
class OutgoingDelete(Outgoing):
    """Revoke message `message_id` of chat `to` for everyone (others' messages only as a group admin)."""

    kind: ClassVar[str] = "delete"
    message_id: str
    from_me: bool
    sender: str


def list_wire(message: ListMessage) -> dict[str, Any]:
    """A list message in the event contract's wire form (`list`): the history's and the echo's."""
    return {
        "buttonText": message.button_text,
        "title": message.title,
        "footer": message.footer,
        "sections": [
            {
                "title": section.title,
                "rows": [
                    {"rowId": row.row_id, "title": row.title, "description": row.description}
                    for row in section.rows
                ],
            }
            for section in message.sections
        ],
    }


@dataclass(frozen=True, kw_only=True)
class OutgoingList(Outgoing):
    """A list message (its shape checked by messaging.services.lists); a customer's choice arrives as a
    `list_response` message naming the row."""

    kind: ClassVar[str] = "list"
    history_type: ClassVar[str | None] = "list"
    message: ListMessage

    def history(self) -> dict[str, Any]:
        return {"text": self.message.text, "list": list_wire(self.message)}


@dataclass(frozen=True, kw_only=True)
class OutgoingTextPreview(Outgoing):
    """A text with the link preview `preview` (its `url` a link of the text). A kind of its own rather
    than a field of OutgoingText: an engine that cannot show a preview says so (400) instead of sending
    the text without it while the history claims the card (docs/decisions/0033)."""

    kind: ClassVar[str] = "text_preview"
    history_type: ClassVar[str | None] = "text"
    text: str
    preview: LinkPreview
    quoted: Quoted | None = None
    #: The JIDs the text mentions (messaging.services.mentions).
    mentions: tuple[str, ...] = ()

    def history(self) -> dict[str, Any]:
        card = {"url": self.preview.url, "title": self.preview.title, "description": self.preview.description}
        return {"text": self.text, "linkPreview": card, **_quote(self.quoted), **_mentions(self.mentions)}


@dataclass(frozen=True, kw_only=True)
class OutgoingForward(Outgoing):
    """A message of the history sent again, marked forwarded: `content` is what the engine sends (a text,
    media from its stored bytes, a location, contact cards, a poll); `original_type` and `original` are
    the original's row type and content, which the copy's row keeps (without what belonged to the
    original alone: its quote, error, template, preview) with `forwarded: true`."""

    kind: ClassVar[str] = "forward"
    content: ForwardContent
    original_type: str
    original: dict[str, Any]

    @property
    def row_type(self) -> str | None:
        return self.original_type

    @property
    def carries_media(self) -> bool:
        return self.content.type == "media"

    def history(self) -> dict[str, Any]:
        dropped = ("quoted", "error", "template", "linkPreview", "mediaUrl")
        kept = {k: v for k, v in self.original.items() if k not in dropped}
        return {**kept, "forwarded": True}


#: Every kind, for the engine bus's allow-list (messaging.engines.remote.bus). Append new kinds.
OUTGOING_KINDS: tuple[type[Outgoing], ...] = (
    OutgoingText,
    OutgoingContact,
    OutgoingContacts,
    OutgoingLocation,
    OutgoingButtons,
    OutgoingMedia,
    OutgoingMediaLink,
    OutgoingPoll,
    OutgoingReaction,
    OutgoingEdit,
    OutgoingDelete,
    OutgoingList,
    OutgoingTextPreview,
    OutgoingForward,
)
