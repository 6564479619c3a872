"""List messages, forwards and link previews: their typed inputs, their operations, and the methods
`client.messages` and `async_client.messages` gain from them (`send_list`, `forward`, and
`send_text`'s `link_preview` through `send_text_with_preview`)."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ponte_client._http import Op
from ponte_client.models import SentMessage

JSON = dict[str, Any]


@dataclass(frozen=True)
class ListRow:
    row_id: str  # comes back in the customer's `listResponse`
    title: str
    description: str = ""


@dataclass(frozen=True)
class ListSection:
    title: str
    rows: Sequence[ListRow] = field(default_factory=tuple)


@dataclass(frozen=True)
class LinkPreview:
    """A preview to show above a text; `url` must be a link of the text."""

    url: str
    title: str
    description: str = ""
    thumbnail: bytes = b""  # a JPEG


def _row(row: ListRow) -> JSON:
    return {"rowId": row.row_id, "title": row.title, "description": row.description}


def _sent(response: Any) -> SentMessage:
    return SentMessage.from_json(response.json())


def messages_send_list(
    session_id: str,
    to: str,
    text: str,
    button_text: str,
    sections: Sequence[ListSection],
    title: str,
    footer: str,
) -> Op[SentMessage]:
    body: JSON = {
        "sessionId": session_id,
        "to": to,
        "text": text,
        "buttonText": button_text,
        "sections": [
            {
                "title": section.title,
                "rows": [
                    {"rowId": r.row_id, "title": r.title, "description": r.description} for r in section.rows
                ],
            }
            for section in sections
        ],
    }
    if title:
        body["title"] = title
    if footer:
        body["footer"] = footer
    return Op("POST", "/api/messages/list", _sent, json=body)


def messages_forward(session_id: str, to: str, chat: str, message_id: str) -> Op[SentMessage]:
    body = {"sessionId": session_id, "to": to, "chat": chat, "messageId": message_id}
    return Op("POST", "/api/messages/forward", _sent, json=body)


def messages_send_text_preview(
    session_id: str, to: str, text: str, preview: LinkPreview | bool, quoted_message_id: str | None
) -> Op[SentMessage]:
    body: JSON = {"sessionId": session_id, "to": to, "text": text}
    if isinstance(preview, LinkPreview):
        given: JSON = {"url": preview.url, "title": preview.title, "description": preview.description}
        if preview.thumbnail:
            given["thumbnailBase64"] = base64.b64encode(preview.thumbnail).decode()
        body["linkPreview"] = given
    else:
        body["linkPreview"] = bool(preview)
    if quoted_message_id:
        body["quoted"] = {"messageId": quoted_message_id}
    return Op("POST", "/api/messages/send", _sent, json=body)


class ListMessages:
    """The sync methods (a base of `Client.messages`)."""

    _run: Callable[[Op[Any]], Any]

    def send_list(
        self,
        session_id: str,
        to: str,
        text: str,
        button_text: str,
        sections: Sequence[ListSection],
        *,
        title: str = "",
        footer: str = "",
    ) -> SentMessage:
        """1 to 10 sections, at most 10 rows in all, row ids unique; the customer's choice arrives as a
        `message` of type `list_response` (`data["listResponse"]["rowId"]`)."""
        return self._run(messages_send_list(session_id, to, text, button_text, sections, title, footer))

    def forward(self, session_id: str, to: str, chat: str, message_id: str) -> SentMessage:
        """Forward message `message_id` of `chat` (text, media, location, contacts, poll) to `to`."""
        return self._run(messages_forward(session_id, to, chat, message_id))

    def send_text_with_preview(
        self,
        session_id: str,
        to: str,
        text: str,
        preview: LinkPreview | bool = True,
        *,
        quoted_message_id: str | None = None,
    ) -> SentMessage:
        """`preview`: the preview itself, or True for Ponte to read the first link's Open Graph tags (the
        text goes without a preview if it cannot)."""
        return self._run(messages_send_text_preview(session_id, to, text, preview, quoted_message_id))


class AsyncListMessages:
    """The async methods (a base of `AsyncClient.messages`)."""

    _run: Callable[[Op[Any]], Awaitable[Any]]

    async def send_list(
        self,
        session_id: str,
        to: str,
        text: str,
        button_text: str,
        sections: Sequence[ListSection],
        *,
        title: str = "",
        footer: str = "",
    ) -> SentMessage:
        return await self._run(messages_send_list(session_id, to, text, button_text, sections, title, footer))

    async def forward(self, session_id: str, to: str, chat: str, message_id: str) -> SentMessage:
        return await self._run(messages_forward(session_id, to, chat, message_id))

    async def send_text_with_preview(
        self,
        session_id: str,
        to: str,
        text: str,
        preview: LinkPreview | bool = True,
        *,
        quoted_message_id: str | None = None,
    ) -> SentMessage:
        return await self._run(messages_send_text_preview(session_id, to, text, preview, quoted_message_id))
