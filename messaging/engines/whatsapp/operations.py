"""The operations of WhatsAppDriver (a mixin, kept apart so each module stays small): each takes the
session's connected client (`_client`, EngineNotConnected otherwise) and runs the `outbound` mapping
under `library_errors`, so library failures leave as engine exceptions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings

from messaging.engines.base import (
    Button,
    ContactCard,
    ContactStatus,
    GroupInfo,
    MediaPayload,
    ParticipantResult,
    Quoted,
    SentMessage,
)
from messaging.engines.whatsapp import lids, outbound, polls
from messaging.engines.whatsapp.errors import library_errors


class WhatsAppOperations:
    _client: Callable[[str], Any]
    presence_allowed: Callable[[str, str], bool]

    def _call(self, session_id: str, operation: Callable[..., Any], *args: Any, kind: str = "message") -> Any:
        client = self._client(session_id)
        with library_errors(kind=kind):
            return operation(client, *args)

    def send_text(
        self,
        session_id: str,
        to: str,
        text: str,
        quoted: Quoted | None = None,
        mentions: tuple[str, ...] = (),
    ) -> SentMessage:
        return self._call(session_id, outbound.send_text, to, text, quoted, tuple(mentions))

    def send_reaction(
        self, session_id: str, chat: str, message_id: str, from_me: bool, sender: str, emoji: str
    ) -> None:
        self._call(session_id, outbound.send_reaction, chat, message_id, from_me, sender, emoji)

    def send_contact(self, session_id: str, to: str, card: ContactCard) -> SentMessage:
        return self._call(session_id, outbound.send_contact, to, card)

    def send_contacts(
        self, session_id: str, to: str, display_name: str, cards: list[ContactCard]
    ) -> SentMessage:
        return self._call(session_id, outbound.send_contacts, to, display_name, cards)

    def send_location(
        self,
        session_id: str,
        to: str,
        latitude: float,
        longitude: float,
        name: str = "",
        address: str = "",
        quoted: Quoted | None = None,
    ) -> SentMessage:
        return self._call(session_id, outbound.send_location, to, latitude, longitude, name, address, quoted)

    def send_buttons(
        self, session_id: str, to: str, text: str, buttons: list[Button], footer: str = ""
    ) -> SentMessage:
        client = self._client(session_id)
        with library_errors():
            return outbound.send_buttons(
                client, to, text, buttons, footer, as_text=settings.WHATSAPP_BUTTONS_AS_TEXT
            )

    def delete_message(self, session_id: str, chat: str, message_id: str, from_me: bool, sender: str) -> None:
        self._call(session_id, outbound.delete_message, chat, message_id, from_me, sender)

    def send_media(
        self, session_id: str, to: str, media: MediaPayload, quoted: Quoted | None = None
    ) -> SentMessage:
        return self._call(session_id, outbound.send_media, to, media, quoted)

    def mark_read(self, session_id: str, chat: str, message_ids: list[str], sender: str = "") -> None:
        self._call(session_id, outbound.mark_read, chat, message_ids, sender)

    def send_presence(self, session_id: str, chat: str, presence: str) -> None:
        if self.presence_allowed(session_id, presence):  # not `unavailable` while always online
            self._call(session_id, outbound.send_presence, chat, presence)

    def check_contacts(self, session_id: str, numbers: list[str]) -> list[ContactStatus]:
        return self._call(session_id, outbound.check_contacts, numbers)

    def set_profile_picture(self, session_id: str, image: bytes, content_type: str, target: str = "") -> None:
        self._call(session_id, outbound.set_profile_picture, image, target, kind="group")

    def set_profile_status(self, session_id: str, status: str) -> None:
        self._call(session_id, lambda client, text: client.set_status_message(text), status)

    def set_profile_name(self, session_id: str, name: str) -> None:
        self._call(session_id, lambda client, text: client.set_profile_name(text), name)

    def group_create(self, session_id: str, subject: str, participants: list[str]) -> GroupInfo:
        return self._call(session_id, outbound.group_create, subject, participants, kind="group")

    def group_list(self, session_id: str) -> list[GroupInfo]:
        return self._call(session_id, outbound.group_list, kind="group")

    def group_leave(self, session_id: str, group_jid: str) -> None:
        self._call(
            session_id, lambda client, jid: client.leave_group(outbound.to_jid(jid)), group_jid, kind="group"
        )

    def group_promote(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        return self._call(session_id, outbound.group_change, group_jid, participants, True, kind="group")

    def group_demote(
        self, session_id: str, group_jid: str, participants: list[str]
    ) -> list[ParticipantResult]:
        return self._call(session_id, outbound.group_change, group_jid, participants, False, kind="group")

    def send_poll(
        self,
        session_id: str,
        to: str,
        name: str,
        options: list[str],
        selectable_count: int = 1,
        quoted: Quoted | None = None,
        mentions: tuple[str, ...] = (),
    ) -> SentMessage:
        return self._call(
            session_id, polls.send_poll, to, name, options, selectable_count, quoted, tuple(mentions)
        )

    def edit_message(self, session_id: str, chat: str, message_id: str, text: str) -> None:
        self._call(session_id, polls.edit_message, chat, message_id, text)

    def lid_lookup(self, session_id: str, jid: str) -> dict[str, str] | None:
        return self._call(session_id, lids.store_pair, jid)
