"""The building blocks of list messages, list responses and link previews in the `message` event
(messaging.engines.events re-exports them): frozen dataclasses whose fields the wire form spells in
camelCase (`rowId`, `buttonText`)."""

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
