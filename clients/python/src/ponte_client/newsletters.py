"""Channels (WhatsApp's newsletters): `client.channels` (and `AsyncClient.channels`) lists the channels a
session owns or follows, creates, follows and unfollows them, and reads a channel's posts. Posting to an
owned channel is `client.messages.send_text(session_id, channel.jid, ...)` like to any chat."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from ponte_client._http import Op
from ponte_client.models import Page

JSON = dict[str, Any]


@dataclass(frozen=True)
class Channel:
    jid: str  # <digits>@newsletter
    name: str
    description: str
    invite: str
    role: Literal["owner", "follower"]

    @classmethod
    def from_json(cls, data: JSON) -> Channel:
        return cls(
            data["jid"], data["name"], data.get("description", ""), data.get("invite", ""), data["role"]
        )


def _one(response: httpx.Response) -> Channel:
    return Channel.from_json(response.json())


def _posts(response: httpx.Response) -> Page[JSON]:
    body = response.json()
    meta = body["meta"]
    return Page(body["data"], meta["total"], meta["page"], meta["limit"], meta["totalPages"])


def channels_list(session_id: str) -> Op[list[Channel]]:
    parse = lambda response: [Channel.from_json(item) for item in response.json()["data"]]  # noqa: E731
    return Op("GET", "/api/channels", parse, params={"sessionId": session_id})


def channels_create(session_id: str, name: str, description: str) -> Op[Channel]:
    body = {"sessionId": session_id, "name": name, "description": description}
    return Op("POST", "/api/channels", _one, json=body)


def channels_follow(session_id: str, jid: str | None, invite: str | None) -> Op[Channel]:
    body: JSON = {"sessionId": session_id, **({"jid": jid} if jid else {"invite": invite})}
    return Op("POST", "/api/channels/follow", _one, json=body)


def channels_unfollow(session_id: str, jid: str) -> Op[bool]:
    parse = lambda response: bool(response.json()["success"])  # noqa: E731
    return Op("POST", "/api/channels/unfollow", parse, json={"sessionId": session_id, "jid": jid})


def channels_messages(session_id: str, jid: str, page: int, limit: int) -> Op[Page[JSON]]:
    params = {"sessionId": session_id, "jid": jid, "page": page, "limit": limit}
    return Op("GET", "/api/channels/messages", _posts, params=params)


class ChannelsResource:
    """`client.channels`."""

    def __init__(self, run: Callable[[Op[Any]], Any]) -> None:
        self._run = run

    def list(self, session_id: str) -> list[Channel]:
        """The channels the session owns or follows, owned first."""
        return self._run(channels_list(session_id))

    def create(self, session_id: str, name: str, *, description: str = "") -> Channel:
        return self._run(channels_create(session_id, name, description))

    def follow(self, session_id: str, *, jid: str | None = None, invite: str | None = None) -> Channel:
        """Follow by `jid` or by `invite` (a code or a https://whatsapp.com/channel/ link)."""
        return self._run(channels_follow(session_id, jid, invite))

    def unfollow(self, session_id: str, jid: str) -> bool:
        return self._run(channels_unfollow(session_id, jid))

    def messages(self, session_id: str, jid: str, *, page: int = 1, limit: int = 20) -> Page[JSON]:
        """A channel's posts in the history, newest first (the message history's items)."""
        return self._run(channels_messages(session_id, jid, page, limit))


class AsyncChannelsResource:
    """`AsyncClient.channels`."""

    def __init__(self, run: Callable[[Op[Any]], Awaitable[Any]]) -> None:
        self._run = run

    async def list(self, session_id: str) -> list[Channel]:
        return await self._run(channels_list(session_id))

    async def create(self, session_id: str, name: str, *, description: str = "") -> Channel:
        return await self._run(channels_create(session_id, name, description))

    async def follow(self, session_id: str, *, jid: str | None = None, invite: str | None = None) -> Channel:
        return await self._run(channels_follow(session_id, jid, invite))

    async def unfollow(self, session_id: str, jid: str) -> bool:
        return await self._run(channels_unfollow(session_id, jid))

    async def messages(self, session_id: str, jid: str, *, page: int = 1, limit: int = 20) -> Page[JSON]:
        return await self._run(channels_messages(session_id, jid, page, limit))
