"""The building blocks of the `message` event: a location, a contact card, a reaction, a quote, a button
reply, a poll, list messages, list responses and link previews (messaging.engines.events re-exports
them): frozen dataclasses whose fields the wire form spells in camelCase (`rowId`, `buttonText`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ListRowRef:
    row_id: str = ""
    title: str = ""
    description: str = ""


@dataclass(frozen=True)
class ListSectionRef:
    title: str = ""
    rows: tuple[ListRowRef, ...] = field(default=(), metadata={"many": ListRowRef})


@dataclass(frozen=True)
class ListRef:
    """A `list` message: the button that opens it, its title and footer, its sections of rows (the
    body is the message's `text`)."""

    button_text: str = ""
    title: str = ""
    footer: str = ""
    sections: tuple[ListSectionRef, ...] = field(default=(), metadata={"many": ListSectionRef})


@dataclass(frozen=True)
class ListResponseRef:
    """A `list_response` message: the row the customer chose."""

    row_id: str = ""
    title: str = ""
    description: str = ""


@dataclass(frozen=True)
class LinkPreviewRef:
    """The link preview shown with a text (`thumbnail` is not carried: WhatsApp's is a few KiB of JPEG)."""

    url: str = ""
    title: str = ""
    description: str = ""


@dataclass(frozen=True)
class Location:
    latitude: float = 0.0
    longitude: float = 0.0
    name: str = ""
    address: str = ""


@dataclass(frozen=True)
class Card:
    """A contact card of a `contacts` message: the fields, the vCard, or both."""

    display_name: str = ""
    phone_number: str = ""
    organization: str | None = None
    vcard: str | None = None


@dataclass(frozen=True)
class Reaction:
    """A `reaction` message: the message reacted to, and the emoji ("" removes the reaction)."""

    message_id: str = ""
    emoji: str = ""


@dataclass(frozen=True)
class QuotedRef:
    message_id: str = ""
    participant: str = ""


@dataclass(frozen=True)
class ButtonRef:
    button_id: str = ""
    button_text: str = ""


@dataclass(frozen=True)
class PollRef:
    """A `poll` message: the question, the option names in order, how many a voter may choose."""

    name: str = ""
    options: tuple[str, ...] = field(default=(), metadata={"many": str})
    selectable_count: int = 1
