"""The asynchronous client: `AsyncClient(base_url=..., api_key=...)`, the same resources as `Client`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import date
from typing import Any, TypeVar

import httpx

from ponte_client import directory, lids, ops
from ponte_client._http import Op, RetryPolicy, send_async
from ponte_client.bots import AsyncBots
from ponte_client.chat_actions import AsyncChatActions, AsyncLabels
from ponte_client.delivery_log import AsyncDeadLetters, AsyncDeliveries
from ponte_client.directory import Chat, Contact, Group, GroupInvite, ParticipantStatus, SessionSettings
from ponte_client.lids import LidPair
from ponte_client.lists import AsyncListMessages
from ponte_client.models import (
    BondList,
    Connection,
    Page,
    PairingCode,
    PollResults,
    QrCode,
    SentMessage,
    Session,
)
from ponte_client.newsletters import AsyncChannelsResource
from ponte_client.status import AsyncStatusResource
from ponte_client.webhook_resources import AsyncInstance as Instance
from ponte_client.webhook_resources import AsyncWebhooks as Webhooks

T = TypeVar("T")
Run = Callable[[Op[Any]], Awaitable[Any]]
JSON = dict[str, Any]


class _Resource:
    def __init__(self, run: Run) -> None:
        self._run = run


class Bonds(_Resource):
    async def list(
        self,
        *,
        product: Sequence[str] | None = None,
        index: Sequence[str] | None = None,
        bank: Sequence[int] | None = None,
        tax_free: bool | None = None,
        fgc: bool | None = None,
        maturity_from: date | None = None,
        maturity_to: date | None = None,
        amount: float | None = None,
        rating_min: str | None = None,
        sort: str | None = None,
    ) -> BondList:
        """Active bonds; without a key, a preview of at most 5 (`status == "preview"`). `amount`: only
        offers whose min_investment it meets; `rating_min`: e.g. "brAA" (national scale, federal bonds
        count as the best); `sort`: a numeric or date field, "-" before it for descending."""
        filters = {
            "product": product,
            "index": index,
            "bank": bank,
            "tax_free": tax_free,
            "fgc": fgc,
            "maturity_from": maturity_from,
            "maturity_to": maturity_to,
            "amount": amount,
            "rating_min": rating_min,
            "sort": sort,
        }
        return await self._run(ops.bonds_list(**filters))

    async def csv(self, *, locale: str | None = None, **filters: Any) -> str:
        """The same list as CSV text (`locale="pt-BR"`: decimal comma, VERDADEIRO/FALSO)."""
        return await self._run(ops.bonds_csv(locale=locale, **filters))


class Sessions(_Resource):
    async def create(self, name: str) -> Session:
        return await self._run(ops.sessions_create(name))

    async def list(self, *, status: str | None = None, page: int = 1, limit: int = 20) -> Page[Session]:
        return await self._run(ops.sessions_list(status, page, limit))

    async def get(self, session_id: str) -> Session:
        return await self._run(ops.sessions_get(session_id))

    async def connect(self, session_id: str) -> Connection:
        return await self._run(ops.sessions_connect(session_id))

    async def qrcode(self, session_id: str) -> QrCode:
        return await self._run(ops.sessions_qrcode(session_id))

    async def pairing_code(self, session_id: str, phone_number: str) -> PairingCode:
        return await self._run(ops.sessions_pairing_code(session_id, phone_number))

    async def sandbox_scan(self, session_id: str, *, phone: str = "", pairing_code: str = "") -> Session:
        """Sandbox sessions only: the sandbox's phone scans the QR code (or types `pairing_code`), so a
        session in `qr` becomes `connected` (as `phone`, else the sandbox's own number)."""
        return await self._run(ops.sessions_sandbox_scan(session_id, phone, pairing_code))

    async def logout(self, session_id: str) -> JSON:
        return await self._run(ops.sessions_logout(session_id))

    async def delete(self, session_id: str) -> None:
        await self._run(ops.sessions_delete(session_id))

    async def settings(self, session_id: str) -> SessionSettings:
        return await self._run(directory.sessions_settings(session_id))

    async def update_settings(
        self,
        session_id: str,
        *,
        reject_calls: bool | None = None,
        reject_call_message: str | None = None,
        ignore_groups: bool | None = None,
        read_messages: bool | None = None,
        always_online: bool | None = None,
        sync_full_history: bool | None = None,
    ) -> SessionSettings:
        """Change the settings given (None: unchanged); the reply is all of them."""
        changes = {
            "reject_calls": reject_calls,
            "reject_call_message": reject_call_message,
            "ignore_groups": ignore_groups,
            "read_messages": read_messages,
            "always_online": always_online,
            "sync_full_history": sync_full_history,
        }
        return await self._run(directory.sessions_settings_update(session_id, changes))


class Messages(AsyncListMessages, _Resource):
    async def send_text(
        self,
        session_id: str,
        to: str,
        text: str,
        *,
        quoted_message_id: str | None = None,
        idempotency_key: str | None = None,
        mentions: Sequence[str] = (),
        mention_all: bool = False,
    ) -> SentMessage:
        """`idempotency_key`: a repeat with the same key gets the first reply, and nothing is sent twice.
        `mentions`: numbers or JIDs the text mentions; `mention_all`: every participant of the group."""
        op = ops.messages_send_text(session_id, to, text, quoted_message_id, mentions, mention_all)
        return await self._run(replace(op, idempotency_key=idempotency_key))

    async def send_location(
        self,
        session_id: str,
        to: str,
        latitude: float,
        longitude: float,
        *,
        name: str = "",
        address: str = "",
    ) -> SentMessage:
        return await self._run(ops.messages_send_location(session_id, to, latitude, longitude, name, address))

    async def send_poll(
        self,
        session_id: str,
        to: str,
        name: str,
        options: Sequence[str],
        *,
        selectable_count: int = 1,
        quoted_message_id: str | None = None,
        idempotency_key: str | None = None,
        mentions: Sequence[str] = (),
        mention_all: bool = False,
    ) -> SentMessage:
        """A poll of 2 to 12 unique options; votes arrive as `poll_vote` events (see `poll_results`)."""
        op = ops.messages_send_poll(
            session_id, to, name, options, selectable_count, quoted_message_id, mentions, mention_all
        )
        return await self._run(replace(op, idempotency_key=idempotency_key))

    async def poll_results(self, session_id: str, message_id: str) -> PollResults:
        return await self._run(ops.messages_poll_results(session_id, message_id))

    async def edit_message(
        self, session_id: str, to: str, message_id: str, text: str, *, idempotency_key: str | None = None
    ) -> JSON:
        """Edit an own text message within 15 minutes of sending (`edited`, `editedAt` in the reply)."""
        op = ops.messages_edit(session_id, to, message_id, text)
        return await self._run(replace(op, idempotency_key=idempotency_key))

    async def react(self, session_id: str, to: str, message_id: str, reaction: str) -> JSON:
        return await self._run(ops.messages_react(session_id, to, message_id, reaction))

    async def delete(
        self, session_id: str, remote_jid: str, message_id: str, *, from_me: bool = True
    ) -> JSON:
        return await self._run(ops.messages_delete(session_id, remote_jid, message_id, from_me))

    async def list(
        self, session_id: str, *, chat: str | None = None, page: int = 1, limit: int = 20
    ) -> Page[JSON]:
        return await self._run(ops.messages_list(session_id, chat, page, limit))


class Contacts(_Resource):
    async def check(self, session_id: str, numbers: Sequence[str]) -> list[JSON]:
        return await self._run(ops.contacts_check(session_id, numbers))

    async def set_name(self, session_id: str, name: str) -> JSON:
        return await self._run(ops.contacts_set_name(session_id, name))

    async def set_status(self, session_id: str, status: str) -> JSON:
        return await self._run(ops.contacts_set_status(session_id, status))

    async def list(self, session_id: str, *, page: int = 1, limit: int = 20) -> Page[Contact]:
        """Who the session has seen (push names, contact cards, group participants)."""
        return await self._run(directory.contacts_list(session_id, page, limit))

    async def picture(self, session_id: str, jid: str) -> str | None:
        """The URL of a contact's (or group's) picture; None when hidden or absent."""
        return await self._run(directory.contacts_picture(session_id, jid))

    async def lid(self, session_id: str, id_: str) -> LidPair:
        """The linked id and phone JID of one contact (`id_`: either, or a number)."""
        return await self._run(lids.contacts_lid(session_id, id_))


class Chats(_Resource):
    async def list(
        self, session_id: str, *, page: int = 1, limit: int = 20, chat: str | None = None
    ) -> Page[Chat]:
        """The session's chats, newest message first, with their unread counts (`chat`: only that one,
        found by either id of a person)."""
        return await self._run(directory.chats_list(session_id, page, limit, chat))


class Groups(_Resource):
    async def create(self, session_id: str, subject: str, participants: Sequence[str]) -> JSON:
        return await self._run(ops.groups_create(session_id, subject, participants))

    async def list(self, session_id: str) -> list[JSON]:
        return await self._run(ops.groups_list(session_id))

    async def leave(self, session_id: str, group_jid: str) -> JSON:
        return await self._run(ops.groups_leave(session_id, group_jid))

    async def add_participants(
        self, session_id: str, group_jid: str, participants: Sequence[str]
    ) -> list[ParticipantStatus]:
        return await self._run(directory.groups_participants(session_id, group_jid, participants, "add"))

    async def remove_participants(
        self, session_id: str, group_jid: str, participants: Sequence[str]
    ) -> list[ParticipantStatus]:
        return await self._run(directory.groups_participants(session_id, group_jid, participants, "remove"))

    async def set_subject(self, session_id: str, group_jid: str, subject: str) -> Group:
        return await self._run(directory.groups_put(session_id, group_jid, "subject", {"subject": subject}))

    async def set_description(self, session_id: str, group_jid: str, description: str) -> Group:
        fields = {"description": description}
        return await self._run(directory.groups_put(session_id, group_jid, "description", fields))

    async def set_settings(
        self, session_id: str, group_jid: str, *, announce: bool | None = None, locked: bool | None = None
    ) -> Group:
        """`announce`: only admins send; `locked`: only admins edit the info (None: unchanged)."""
        fields = {"announce": announce, "locked": locked}
        return await self._run(directory.groups_put(session_id, group_jid, "settings", fields))

    async def invite(self, session_id: str, group_jid: str) -> GroupInvite:
        return await self._run(directory.groups_invite(session_id, group_jid))

    async def revoke_invite(self, session_id: str, group_jid: str) -> GroupInvite:
        return await self._run(directory.groups_invite_revoke(session_id, group_jid))

    async def join(self, session_id: str, code: str) -> Group:
        """Join by invite code or link (NotFoundError `INVITE_NOT_FOUND` when unknown or revoked)."""
        return await self._run(directory.groups_join(session_id, code))


class AsyncClient:
    """Ponte's API, asynchronously. Use as an async context manager, or call `aclose()`."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        wait_on_rate_limit: bool = False,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self._http = http or httpx.AsyncClient(
            base_url=base_url.rstrip("/"), timeout=timeout, headers={"User-Agent": "ponte-client/0.1"}
        )
        self._api_key = api_key
        self._retry = retry or RetryPolicy()
        if wait_on_rate_limit:  # a shorthand for RetryPolicy(wait_on_rate_limit=True)
            self._retry = replace(self._retry, wait_on_rate_limit=True)
        self.bonds = Bonds(self._send)
        self.sessions = Sessions(self._send)
        self.messages = Messages(self._send)
        self.contacts = Contacts(self._send)
        self.groups = Groups(self._send)
        self.chats = Chats(self._send)
        self.chat_actions = AsyncChatActions(self._send)
        self.labels = AsyncLabels(self._send)
        self.webhooks = Webhooks(self._send)
        self.instance = Instance(self._send)
        self.deliveries = AsyncDeliveries(self._send)
        self.dead_letters = AsyncDeadLetters(self._send)
        self.bots = AsyncBots(self._send)
        self.status = AsyncStatusResource(self._send)
        self.channels = AsyncChannelsResource(self._send)

    async def _send(self, op: Op[T]) -> T:
        return await send_async(self._http, op, api_key=self._api_key, retry=self._retry)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
