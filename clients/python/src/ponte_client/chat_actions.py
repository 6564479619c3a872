"""Chat and contact actions and labels (issue 41): archive, pin, mute, mark unread, block, the chat list
filtered by state or label, and WhatsApp Business labels. `Client.chat_actions` / `Client.labels` (and
their async twins on `AsyncClient`) send these operations like those of `ops`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from urllib.parse import quote

import httpx

from ponte_client._http import Op
from ponte_client.directory import Chat, Contact, page_of
from ponte_client.models import Page

JSON = dict[str, Any]


@dataclass(frozen=True)
class Label:
    id: str
    name: str
    color: int  # an index of WhatsApp's palette, 0 to 19

    @classmethod
    def from_json(cls, data: JSON) -> Label:
        return cls(data["id"], data["name"], data["color"])


def _chat(response: httpx.Response) -> Chat:
    return Chat.from_json(response.json())


def _label(response: httpx.Response) -> Label:
    return Label.from_json(response.json())


def _body(session_id: str, chat_id: str, **fields: Any) -> JSON:
    return {"sessionId": session_id, "chatId": chat_id, **fields}


def chats_archive(session_id: str, chat_id: str, archived: bool) -> Op[Chat]:
    return Op("POST", "/api/chats/archive", _chat, json=_body(session_id, chat_id, archived=archived))


def chats_pin(session_id: str, chat_id: str, pinned: bool) -> Op[Chat]:
    return Op("POST", "/api/chats/pin", _chat, json=_body(session_id, chat_id, pinned=pinned))


def chats_mute(session_id: str, chat_id: str, until: datetime | None) -> Op[Chat]:
    body = _body(session_id, chat_id, until=until.isoformat() if until else None)
    return Op("POST", "/api/chats/mute", _chat, json=body)


def chats_unread(session_id: str, chat_id: str, unread: bool) -> Op[Chat]:
    return Op("POST", "/api/chats/unread", _chat, json=_body(session_id, chat_id, unread=unread))


def chats_filtered(session_id: str, filters: JSON, page: int, limit: int) -> Op[Page[Chat]]:
    params: JSON = {"sessionId": session_id, "page": page, "limit": limit}
    names = {"archived": "archived", "pinned": "pinned", "muted": "muted", "marked_unread": "markedUnread"}
    for name, value in filters.items():
        if value is None:
            continue
        if name == "label_id":
            params["labelId"] = value
        elif name in names:
            params[names[name]] = "true" if value else "false"
        else:
            raise TypeError(f"unknown chat filter: {name}")
    return Op("GET", "/api/chats", page_of(Chat.from_json), params=params)


def contacts_block(session_id: str, jid: str, blocked: bool) -> Op[JSON]:
    body = {"sessionId": session_id, "jid": jid, "blocked": blocked}
    return Op("POST", "/api/contacts/block", lambda response: response.json(), json=body)


def contacts_blocked(session_id: str, page: int, limit: int) -> Op[Page[Contact]]:
    params = {"sessionId": session_id, "page": page, "limit": limit}
    return Op("GET", "/api/contacts/blocked", page_of(Contact.from_json), params=params)


def labels_list(session_id: str, page: int, limit: int) -> Op[Page[Label]]:
    params = {"sessionId": session_id, "page": page, "limit": limit}
    return Op("GET", "/api/labels", page_of(Label.from_json), params=params)


def labels_create(session_id: str, name: str, color: int) -> Op[Label]:
    return Op("POST", "/api/labels", _label, json={"sessionId": session_id, "name": name, "color": color})


def labels_update(session_id: str, label_id: str, name: str | None, color: int | None) -> Op[Label]:
    body = {k: v for k, v in (("name", name), ("color", color)) if v is not None}
    path = f"/api/labels/{quote(label_id, safe='')}"
    return Op("PUT", path, _label, params={"sessionId": session_id}, json=body)


def labels_delete(session_id: str, label_id: str) -> Op[JSON]:
    path = f"/api/labels/{quote(label_id, safe='')}"
    return Op("DELETE", path, lambda response: response.json(), params={"sessionId": session_id})


def chats_label(
    session_id: str, chat_id: str, label_id: str, action: Literal["add", "remove"]
) -> Op[list[str]]:
    body = {"sessionId": session_id, "chatId": chat_id, "labelId": label_id, "action": action}
    return Op("POST", "/api/chats/labels", lambda response: response.json()["labelIds"], json=body)


class ChatActions:
    def __init__(self, run: Callable[[Op[Any]], Any]) -> None:
        self._run = run

    def archive(self, session_id: str, chat_id: str, archived: bool = True) -> Chat:
        return self._run(chats_archive(session_id, chat_id, archived))

    def pin(self, session_id: str, chat_id: str, pinned: bool = True) -> Chat:
        return self._run(chats_pin(session_id, chat_id, pinned))

    def mute(self, session_id: str, chat_id: str, until: datetime | None) -> Chat:
        """Mute until `until` (in the future); None unmutes."""
        return self._run(chats_mute(session_id, chat_id, until))

    def mark_unread(self, session_id: str, chat_id: str, unread: bool = True) -> Chat:
        return self._run(chats_unread(session_id, chat_id, unread))

    def list(
        self,
        session_id: str,
        *,
        archived: bool | None = None,
        pinned: bool | None = None,
        muted: bool | None = None,
        marked_unread: bool | None = None,
        label_id: str | None = None,
        page: int = 1,
        limit: int = 20,
    ) -> Page[Chat]:
        """The chat list filtered by state or label (None: either)."""
        filters = {"archived": archived, "pinned": pinned, "muted": muted, "marked_unread": marked_unread}
        return self._run(chats_filtered(session_id, {**filters, "label_id": label_id}, page, limit))

    def block(self, session_id: str, jid: str, blocked: bool = True) -> JSON:
        return self._run(contacts_block(session_id, jid, blocked))

    def blocked(self, session_id: str, *, page: int = 1, limit: int = 20) -> Page[Contact]:
        return self._run(contacts_blocked(session_id, page, limit))


class Labels:
    def __init__(self, run: Callable[[Op[Any]], Any]) -> None:
        self._run = run

    def list(self, session_id: str, *, page: int = 1, limit: int = 20) -> Page[Label]:
        return self._run(labels_list(session_id, page, limit))

    def create(self, session_id: str, name: str, color: int) -> Label:
        return self._run(labels_create(session_id, name, color))

    def update(
        self, session_id: str, label_id: str, *, name: str | None = None, color: int | None = None
    ) -> Label:
        return self._run(labels_update(session_id, label_id, name, color))

    def delete(self, session_id: str, label_id: str) -> JSON:
        return self._run(labels_delete(session_id, label_id))

    def add_to_chat(self, session_id: str, chat_id: str, label_id: str) -> list[str]:
        """Returns the chat's label ids after."""
        return self._run(chats_label(session_id, chat_id, label_id, "add"))

    def remove_from_chat(self, session_id: str, chat_id: str, label_id: str) -> list[str]:
        return self._run(chats_label(session_id, chat_id, label_id, "remove"))


class AsyncChatActions:
    def __init__(self, run: Callable[[Op[Any]], Awaitable[Any]]) -> None:
        self._run = run

    async def archive(self, session_id: str, chat_id: str, archived: bool = True) -> Chat:
        return await self._run(chats_archive(session_id, chat_id, archived))

    async def pin(self, session_id: str, chat_id: str, pinned: bool = True) -> Chat:
        return await self._run(chats_pin(session_id, chat_id, pinned))

    async def mute(self, session_id: str, chat_id: str, until: datetime | None) -> Chat:
        return await self._run(chats_mute(session_id, chat_id, until))

    async def mark_unread(self, session_id: str, chat_id: str, unread: bool = True) -> Chat:
        return await self._run(chats_unread(session_id, chat_id, unread))

    async def list(
        self,
        session_id: str,
        *,
        archived: bool | None = None,
        pinned: bool | None = None,
        muted: bool | None = None,
        marked_unread: bool | None = None,
        label_id: str | None = None,
        page: int = 1,
        limit: int = 20,
    ) -> Page[Chat]:
        filters = {"archived": archived, "pinned": pinned, "muted": muted, "marked_unread": marked_unread}
        return await self._run(chats_filtered(session_id, {**filters, "label_id": label_id}, page, limit))

    async def block(self, session_id: str, jid: str, blocked: bool = True) -> JSON:
        return await self._run(contacts_block(session_id, jid, blocked))

    async def blocked(self, session_id: str, *, page: int = 1, limit: int = 20) -> Page[Contact]:
        return await self._run(contacts_blocked(session_id, page, limit))


class AsyncLabels:
    def __init__(self, run: Callable[[Op[Any]], Awaitable[Any]]) -> None:
        self._run = run

    async def list(self, session_id: str, *, page: int = 1, limit: int = 20) -> Page[Label]:
        return await self._run(labels_list(session_id, page, limit))

    async def create(self, session_id: str, name: str, color: int) -> Label:
        return await self._run(labels_create(session_id, name, color))

    async def update(
        self, session_id: str, label_id: str, *, name: str | None = None, color: int | None = None
    ) -> Label:
        return await self._run(labels_update(session_id, label_id, name, color))

    async def delete(self, session_id: str, label_id: str) -> JSON:
        return await self._run(labels_delete(session_id, label_id))

    async def add_to_chat(self, session_id: str, chat_id: str, label_id: str) -> list[str]:
        return await self._run(chats_label(session_id, chat_id, label_id, "add"))

    async def remove_from_chat(self, session_id: str, chat_id: str, label_id: str) -> list[str]:
        return await self._run(chats_label(session_id, chat_id, label_id, "remove"))
