"""Status (stories): `client.status` (and `AsyncClient.status`) posts text and media statuses, deletes
them, and lists the session's own and its contacts' statuses of the last 24 hours."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import httpx

from ponte_client._http import Op
from ponte_client.models import Page

JSON = dict[str, Any]
StatusType = Literal["text", "image", "video"]


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass(frozen=True)
class Status:
    id: str
    sender: str
    push_name: str
    from_me: bool
    type: StatusType
    text: str  # a text status's text, or a media status's caption
    background_color: str | None  # text statuses: "#RRGGBB"
    font: int | None  # text statuses: 0 to 5
    media_url: str | None
    mime_type: str | None
    posted_at: datetime
    expires_at: datetime

    @classmethod
    def from_json(cls, data: JSON) -> Status:
        return cls(
            data["id"],
            data["sender"],
            data.get("pushName", ""),
            data["fromMe"],
            data["type"],
            data.get("text", ""),
            data.get("backgroundColor"),
            data.get("font"),
            data.get("mediaUrl"),
            data.get("mimeType"),
            _dt(data["postedAt"]),
            _dt(data["expiresAt"]),
        )


def _one(response: httpx.Response) -> Status:
    return Status.from_json(response.json())


def _page(response: httpx.Response) -> Page[Status]:
    body = response.json()
    meta = body["meta"]
    items = [Status.from_json(item) for item in body["data"]]
    return Page(items, meta["total"], meta["page"], meta["limit"], meta["totalPages"])


def status_text(session_id: str, text: str, background_color: str, font: int) -> Op[Status]:
    body = {"sessionId": session_id, "text": text, "backgroundColor": background_color, "font": font}
    return Op("POST", "/api/status/text", _one, json=body)


def status_media(
    session_id: str, type_: str, url: str | None, base64: str | None, caption: str
) -> Op[Status]:
    body: JSON = {"sessionId": session_id, "type": type_, "caption": caption}
    body.update({"url": url} if url else {"base64": base64})
    return Op("POST", "/api/status/media", _one, json=body)


def status_delete(session_id: str, status_id: str) -> Op[Status]:
    return Op("POST", "/api/status/delete", _one, json={"sessionId": session_id, "id": status_id})


def status_list(path: str, session_id: str, page: int, limit: int) -> Op[Page[Status]]:
    return Op("GET", path, _page, params={"sessionId": session_id, "page": page, "limit": limit})


class StatusResource:
    """`client.status`."""

    def __init__(self, run: Callable[[Op[Any]], Any]) -> None:
        self._run = run

    def post_text(
        self, session_id: str, text: str, *, background_color: str = "#000000", font: int = 0
    ) -> Status:
        """A text status (`background_color` "#RRGGBB", `font` 0 to 5); counts against the daily quota."""
        return self._run(status_text(session_id, text, background_color, font))

    def post_media(
        self,
        session_id: str,
        type: Literal["image", "video"],
        *,
        url: str | None = None,
        base64: str | None = None,
        caption: str = "",
    ) -> Status:
        """An image or video status from exactly one of `url` or `base64`."""
        return self._run(status_media(session_id, type, url, base64, caption))

    def delete(self, session_id: str, status_id: str) -> Status:
        return self._run(status_delete(session_id, status_id))

    def list(self, session_id: str, *, page: int = 1, limit: int = 20) -> Page[Status]:
        """The session's own statuses of the last 24 hours, newest first."""
        return self._run(status_list("/api/status", session_id, page, limit))

    def contacts(self, session_id: str, *, page: int = 1, limit: int = 20) -> Page[Status]:
        """Contacts' statuses the session saw in the last 24 hours, newest first."""
        return self._run(status_list("/api/status/contacts", session_id, page, limit))


class AsyncStatusResource:
    """`AsyncClient.status`."""

    def __init__(self, run: Callable[[Op[Any]], Awaitable[Any]]) -> None:
        self._run = run

    async def post_text(
        self, session_id: str, text: str, *, background_color: str = "#000000", font: int = 0
    ) -> Status:
        return await self._run(status_text(session_id, text, background_color, font))

    async def post_media(
        self,
        session_id: str,
        type: Literal["image", "video"],
        *,
        url: str | None = None,
        base64: str | None = None,
        caption: str = "",
    ) -> Status:
        return await self._run(status_media(session_id, type, url, base64, caption))

    async def delete(self, session_id: str, status_id: str) -> Status:
        return await self._run(status_delete(session_id, status_id))

    async def list(self, session_id: str, *, page: int = 1, limit: int = 20) -> Page[Status]:
        return await self._run(status_list("/api/status", session_id, page, limit))

    async def contacts(self, session_id: str, *, page: int = 1, limit: int = 20) -> Page[Status]:
        return await self._run(status_list("/api/status/contacts", session_id, page, limit))
